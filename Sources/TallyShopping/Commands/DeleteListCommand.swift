import TallyProtocol
import TallyStorage

/// `shopping.delete_list`: removes a list and its items, and returns the list as it was. Lists
/// copied from a deleted template keep their items and their `from_template`. Its purchases leave
/// the price history.
enum DeleteListCommand {
    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: ShoppingStore) throws -> StoredResult {
        let owner = caller.userID
        try args.allowOnly(["list_id"])
        let id = try args.id("list_id", of: "one of your lists")
        return try store.change(context, args, owner: owner) { change in
            let list = try ListRecord.find(change.session, owner: owner, id: id)
            let summary = try ListSummary(list)
            try list.delete(change.session)
            change.record(ShoppingEvent.listDeleted(.init(owner: owner, listID: id, kind: list.kind, name: list.name)))
            return summary
        }
    }
}
