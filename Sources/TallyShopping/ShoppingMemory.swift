import GRDB

/// Shopping memory: a new shopping list starts with what the owner's previous shopping list
/// left unbought. An item not purchased carries its whole planned quantity; one purchased in a
/// smaller quantity than planned carries the difference. A carried item whose name (compared
/// as `ItemName.key`) and unit match an item already in the new list (copied from a template)
/// adds to that item's planned quantity instead of appearing twice.
enum ShoppingMemory {
    /// Carries into `listID` and returns what was carried, or nil when nothing was.
    static func carry(_ db: Database, from previous: ListRecord, into listID: Int64, items: inout [ItemRecord], at now: Int64) throws -> CarriedOver? {
        var carried: [CarriedOver.Item] = []
        for source in try previous.items(db) {
            let quantity = source.purchased ? source.plannedQuantity - source.purchasedQuantity : source.plannedQuantity
            guard quantity > 0 else { continue }
            if let index = items.firstIndex(where: { $0.nameKey == source.nameKey && $0.unit == source.unit }) {
                items[index].plannedQuantity = min(items[index].plannedQuantity + quantity, Int64(Fields.largestQuantity))
                try items[index].update(db)
                carried.append(.init(itemID: items[index].id!, fromItemID: source.id!, name: source.name, unit: source.unit, quantity: quantity))
            } else {
                guard items.count < ItemRecord.mostPerList else { break }
                var item = ItemRecord(
                    id: nil, listID: listID, name: source.name, nameKey: source.nameKey, unit: source.unit,
                    plannedQuantity: quantity, purchasedQuantity: 0, purchased: false, unitPrice: nil,
                    purchasedAt: nil, createdAt: now, updatedAt: now)
                try item.insert(db)
                items.append(item)
                carried.append(.init(itemID: item.id!, fromItemID: source.id!, name: source.name, unit: source.unit, quantity: quantity))
            }
        }
        return carried.isEmpty ? nil : CarriedOver(fromListID: previous.id!, items: carried)
    }
}
