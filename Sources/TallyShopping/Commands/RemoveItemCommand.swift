import TallyProtocol
import TallyStorage

/// `shopping.remove_item`: takes an item off its list and returns it as it was.
enum RemoveItemCommand {
    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: ShoppingStore) throws -> StoredResult {
        try store.changeItem(context, args, owner: caller.userID) { change, target in
            try target.item.delete(change.session, from: &target.list)
            target.list.touch(&change)
            change.record(ShoppingEvent.itemRemoved(target.event()))
            return try target.result()
        }
    }
}
