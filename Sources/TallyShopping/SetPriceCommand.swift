import TallyMoney
import TallyProtocol
import TallyStorage

/// `shopping.set_price`: an item's unit price, in the list's currency. On a purchased item, with
/// price comparison on, the reply compares the new price with the last one paid for the item.
enum SetPriceCommand {
    static func run(_ args: Arguments, _ context: RequestContext, _ store: ShoppingStore) throws -> StoredResult {
        try args.allowOnly(["owner", "list_id", "item_id", "unit_price"])
        let owner = try Owner.read(args)
        let ids = try ItemTarget.ids(args)
        _ = try args.decimalText("unit_price", example: "\"1.29\"")
        return try store.mutate(args, context, owner: owner) { db in
            var target = try ItemTarget.find(db, owner: owner, listID: ids.list, itemID: ids.item)
            try target.refuseTemplate("shopping.set_price")
            let original = target.item
            target.item.unitPrice = try Int64(args.amount("unit_price", in: target.currency))
            try target.save(db, original: original, at: Timestamp.now(), field: "args.unit_price")
            let priceIsNew = original.unitPrice != target.item.unitPrice
            if priceIsNew {
                try store.record(db, .itemUpdated(target.event(changed: ["unit_price"])), subject: target.list.subject)
            }
            let comparison = try PriceComparison.run(db, target, priceIsNew: priceIsNew, store: store)
            return try target.result(db, comparison: comparison)
        }
    }
}
