import TallyStorage

/// Shopping memory: a new shopping list starts with what the owner's previous shopping list
/// left unbought. An item not purchased carries its whole planned quantity; one purchased in a
/// smaller quantity than planned carries the difference. A carried item whose name (compared
/// as `ItemName.key`) and unit match an item already in the new list (copied from a template)
/// adds to that item's planned quantity instead of appearing twice.
enum ShoppingMemory {
    /// Carries into `list` (whose tallies the caller writes back) and returns what was carried, or nil when nothing was.
    static func carry(
        _ session: any SQLSession, from previous: ListRecord, into list: inout ListRecord, items: inout [ItemRecord], at now: Int64
    ) throws -> CarriedOver? {
        var carried: [CarriedOver.Item] = []
        for source in try previous.items(session) {
            let quantity = source.purchased ? source.plannedQuantity - source.purchasedQuantity : source.plannedQuantity
            guard quantity > 0 else { continue }
            if let index = items.firstIndex(where: { $0.nameKey == source.nameKey && $0.unit == source.unit }) {
                let original = items[index]
                items[index].plannedQuantity = min(original.plannedQuantity + quantity, Fields.largestQuantity)
                try items[index].update(session, from: original, in: &list)
                carried.append(.init(itemID: items[index].id, fromItemID: source.id, name: source.name, unit: source.unit, quantity: quantity))
            } else {
                guard items.count < ItemRecord.mostPerList else { break }
                let item = try ItemRecord.insert(
                    session, into: &list, name: source.name, nameKey: source.nameKey, unit: source.unit, plannedQuantity: quantity,
                    at: now)
                items.append(item)
                carried.append(.init(itemID: item.id, fromItemID: source.id, name: source.name, unit: source.unit, quantity: quantity))
            }
        }
        return carried.isEmpty ? nil : CarriedOver(fromListID: previous.id, items: carried)
    }
}
