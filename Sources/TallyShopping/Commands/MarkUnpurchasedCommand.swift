import TallyProtocol
import TallyStorage

/// `shopping.mark_unpurchased`: the item is not bought after all: its purchased quantity goes
/// back to 0 and it leaves the total and the price history; its price is kept. An item that is
/// not purchased is left as it is.
enum MarkUnpurchasedCommand {
    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: ShoppingStore) throws -> StoredResult {
        try store.changeItem(context, args, owner: caller.userID) { change, target in
            try target.refuseTemplate("shopping.mark_unpurchased")
            let original = target.item
            target.item.purchased = false
            target.item.purchasedQuantity = 0
            target.item.purchasedAt = nil
            try target.save(&change, original: original, field: "args.item_id")
            if original.purchased {
                change.record(ShoppingEvent.itemUnpurchased(target.event()))
            }
            return try target.result()
        }
    }
}
