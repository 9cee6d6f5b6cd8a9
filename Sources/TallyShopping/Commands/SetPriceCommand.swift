import TallyMoney
import TallyProtocol
import TallyStorage

/// `shopping.set_price`: an item's unit price, in the list's currency. On a purchased item, with
/// price comparison on, the reply compares the new price with the last one paid for the item.
enum SetPriceCommand {
    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: ShoppingStore) throws -> StoredResult {
        let owner = caller.userID
        try args.allowOnly(["list_id", "item_id", "unit_price"])
        let ids = try ItemTarget.ids(args)
        _ = try args.decimalText("unit_price", example: "\"1.29\"")
        return try store.changeItem(context, args, owner: owner, ids) { change, target in
            try target.refuseTemplate("shopping.set_price")
            let original = target.item
            target.item.unitPrice = try args.amount("unit_price", in: target.currency)
            try target.save(&change, original: original, field: "args.unit_price")
            let priceIsNew = original.unitPrice != target.item.unitPrice
            if priceIsNew {
                change.record(ShoppingEvent.itemUpdated(target.event(changed: ["unit_price"])))
            }
            let comparison = try PriceComparison.run(&change, target, priceIsNew: priceIsNew)
            return try target.result(comparison: comparison)
        }
    }
}
