import TallyProtocol
import TallyStorage

/// `shopping.remove_item`: takes an item off its list and returns it as it was.
enum RemoveItemCommand {
    static func run(_ args: Arguments, _ context: RequestContext, _ store: ShoppingStore) throws -> StoredResult {
        try args.allowOnly(["owner", "list_id", "item_id"])
        let owner = try Owner.read(args)
        let ids = try ItemTarget.ids(args)
        return try store.mutate(args, context, owner: owner) { db in
            var target = try ItemTarget.find(db, owner: owner, listID: ids.list, itemID: ids.item)
            _ = try target.item.delete(db)
            try target.list.touch(db, at: Timestamp.now())
            try store.record(db, .itemRemoved(target.event()), subject: target.list.subject)
            return try target.result(db)
        }
    }
}
