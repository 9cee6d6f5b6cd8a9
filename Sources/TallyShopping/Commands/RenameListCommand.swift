import TallyProtocol
import TallyStorage

/// `shopping.rename_list`: a list's new name. Renaming to the same name changes nothing and
/// records no event.
enum RenameListCommand {
    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: ShoppingStore) throws -> StoredResult {
        let owner = caller.userID
        try args.allowOnly(["list_id", "name"])
        let id = try args.id("list_id", of: "one of your lists")
        let name = try args.text("name", longest: ListName.longest, what: "a list name such as \"Weekly\"")
        return try store.change(context, args, owner: owner) { change in
            var list = try ListRecord.find(change.session, owner: owner, id: id)
            if list.name != name {
                let previous = list.name
                list.name = name
                list.touch(&change)
                change.record(ShoppingEvent.listRenamed(.init(owner: owner, listID: id, name: name, previousName: previous)))
            }
            return try ListSummary(list)
        }
    }
}
