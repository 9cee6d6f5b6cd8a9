import TallyProtocol
import TallyStorage

/// `shopping.add_item`: a new, unpurchased item at the end of a list (template or shopping).
enum AddItemCommand {
    static func run(_ args: Arguments, _ context: RequestContext, _ store: ShoppingStore) throws -> StoredResult {
        try args.allowOnly(["owner", "list_id", "name", "unit", "planned_quantity"])
        let owner = try Owner.read(args)
        let listID = try Fields.id(args, "list_id", of: "lists")
        let name = try TextField.required(args, "name", longest: ItemName.longest, what: "an item name such as \"Milk\"")
        let unit = try TextField.read(args, "unit", longest: Unit.longest, what: "a unit such as \"kg\", or leave it out")
        let planned = try Fields.quantity(args, "planned_quantity") ?? 1
        return try store.mutate(args, context, owner: owner) { db in
            var list = try ListRecord.find(db, owner: owner, id: listID)
            try ItemRecord.checkRoom(db, in: list)
            let now = Timestamp.now()
            var item = ItemRecord(
                id: nil, listID: listID, name: name, nameKey: ItemName.key(name), unit: unit,
                plannedQuantity: Int64(planned), purchasedQuantity: 0, purchased: false, unitPrice: nil,
                purchasedAt: nil, createdAt: now, updatedAt: now)
            try item.insert(db)
            try list.touch(db, at: now)
            let target = ItemTarget(list: list, item: item, currency: try list.storedCurrency())
            try store.record(db, .itemAdded(target.event()), subject: list.subject)
            return try target.result(db)
        }
    }
}
