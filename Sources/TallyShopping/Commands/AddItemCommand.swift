import TallyProtocol
import TallyStorage

/// `shopping.add_item`: a new, unpurchased item at the end of a list (template or shopping).
enum AddItemCommand {
    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: ShoppingStore) throws -> StoredResult {
        let owner = caller.userID
        try args.allowOnly(["list_id", "name", "unit", "planned_quantity"])
        let listID = try args.id("list_id", of: "one of your lists")
        let name = try args.text("name", longest: ItemName.longest, what: "an item name such as \"Milk\"")
        let unit = try args.optionalText("unit", longest: Unit.longest, what: "a unit such as \"kg\", or leave it out")
        let planned = try Fields.quantity(args, "planned_quantity") ?? 1
        // Before the transaction, which the other changes of its group commit wait on.
        let nameKey = ItemName.key(name)
        return try store.change(context, args, owner: owner) { change in
            let session = change.session
            var list = try ListRecord.find(session, owner: owner, id: listID)
            try list.checkRoom()
            let item = try ItemRecord.insert(
                session, into: &list, name: name, nameKey: nameKey, unit: unit, plannedQuantity: planned, at: change.now)
            list.touch(&change)
            let target = ItemTarget(list: list, item: item, currency: try list.storedCurrency())
            change.record(ShoppingEvent.itemAdded(target.event()))
            return try target.result()
        }
    }
}
