import TallyMoney
import TallyProtocol
import TallyStorage

/// `shopping.mark_purchased`: the item is bought, optionally at `unit_price` and in
/// `purchased_quantity` (default: the planned quantity). Marking a purchased item again changes
/// its price or quantity (it keeps its purchase time). With price comparison on, the reply
/// compares the price with the last one paid for the item.
enum MarkPurchasedCommand {
    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: ShoppingStore) throws -> StoredResult {
        let owner = caller.userID
        try args.allowOnly(["list_id", "item_id", "unit_price", "purchased_quantity"])
        let ids = try ItemTarget.ids(args)
        let quantity = try Fields.quantity(args, "purchased_quantity")
        let hasPrice = args.has("unit_price")
        return try store.changeItem(context, args, owner: owner, ids) { change, target in
            try target.refuseTemplate("shopping.mark_purchased")
            let original = target.item
            if hasPrice { target.item.unitPrice = try args.amount("unit_price", in: target.currency) }
            target.item.purchasedQuantity = quantity ?? (original.purchased ? original.purchasedQuantity : original.plannedQuantity)
            if !original.purchased {
                target.item.purchased = true
                target.item.purchasedAt = change.now
            }
            try target.save(&change, original: original, field: hasPrice ? "args.unit_price" : "args.purchased_quantity")
            if !original.purchased {
                change.record(ShoppingEvent.itemPurchased(target.event()))
            } else if target.item != original {
                change.record(ShoppingEvent.itemUpdated(target.event(changed: ItemDiff.fields(original, target.item))))
            }
            let priceIsNew = !original.purchased || original.unitPrice != target.item.unitPrice
            let comparison = try PriceComparison.run(&change, target, priceIsNew: priceIsNew)
            return try target.result(comparison: comparison)
        }
    }
}
