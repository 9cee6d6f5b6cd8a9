import TallyProtocol
import TallyStorage

/// `shopping.update_item`: changes any of an item's name, unit and quantities. An empty `unit`
/// (`""`) removes the unit. A change that changes nothing records no event.
enum UpdateItemCommand {
    static let changeable = ["name", "planned_quantity", "purchased_quantity", "unit"]

    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: ShoppingStore) throws -> StoredResult {
        let owner = caller.userID
        try args.allowOnly(Set(changeable + ["list_id", "item_id"]))
        let ids = try ItemTarget.ids(args)
        try args.requireAny(of: changeable, for: "shopping.update_item")
        let name = try args.optionalText("name", longest: ItemName.longest, what: "an item name such as \"Milk\"")
        let clearsUnit = try args.optionalString("unit") == ""
        let unit = clearsUnit ? nil : try args.optionalText("unit", longest: Unit.longest, what: "a unit such as \"kg\", or \"\" for none")
        let planned = try Fields.quantity(args, "planned_quantity")
        let purchased = try Fields.quantity(args, "purchased_quantity")
        let nameKey = name.map(ItemName.key)
        return try store.changeItem(context, args, owner: owner, ids) { change, target in
            let original = target.item
            if let name, let nameKey {
                target.item.name = name
                target.item.nameKey = nameKey
            }
            if clearsUnit { target.item.unit = nil } else if let unit { target.item.unit = unit }
            if let planned { target.item.plannedQuantity = planned }
            if let purchased { target.item.purchasedQuantity = purchased }
            try target.save(&change, original: original, field: "args.purchased_quantity")
            let changed = ItemDiff.fields(original, target.item)
            if !changed.isEmpty {
                change.record(ShoppingEvent.itemUpdated(target.event(changed: changed)))
            }
            return try target.result()
        }
    }
}
