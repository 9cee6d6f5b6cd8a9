import TallyMoney
import TallyProtocol
import TallyStorage

/// What every item command does around its change: find the owner's list and item, and after
/// the change check the total, mark the list changed and answer with the item and its list.
struct ItemTarget {
    var list: ListRecord
    var item: ItemRecord
    let currency: Currency

    fileprivate static func find(_ session: any SQLSession, owner: String, listID: Int64, itemID: Int64) throws -> ItemTarget {
        let list = try ListRecord.find(session, owner: owner, id: listID)
        return ItemTarget(list: list, item: try ItemRecord.find(session, list: list, id: itemID), currency: try list.storedCurrency())
    }

    static func ids(_ args: Arguments) throws(TallyError) -> (list: Int64, item: Int64) {
        (try args.id("list_id", of: "one of your lists"), try args.id("item_id", of: "one of your items"))
    }

    /// Stores the item when it changed (with the list's tallies and `updated_at`), unless the
    /// list's total would no longer fit; `field` is the arg blamed when it would not.
    mutating func save(_ change: inout Change, original: ItemRecord, field: String) throws {
        guard item != original else { return }
        item.updatedAt = change.now
        try item.update(change.session, from: original, in: &list)
        _ = try list.tallies.checkedTotal(in: currency, field: field)
        list.touch(&change)
    }

    func result(comparison: Comparison? = nil) throws -> ItemChange {
        ItemChange(item: item.result(currency), list: try ListSummary(list), comparison: comparison)
    }

    func event(changed: [String]? = nil) -> ShoppingEvent.ItemEvent {
        .init(owner: list.owner, listID: list.id, currency: list.currency, item: item.result(currency), changed: changed)
    }

    func refuseTemplate(_ command: String) throws {
        if list.kind == .template { throw ShoppingErrors.notOnTemplates(list, command: command) }
    }
}

extension ShoppingStore {
    /// The owner's keyed change of one of their items (`ids`, from `ItemTarget.ids`), found in the
    /// change's own transaction: the one way every item command starts its change.
    func changeItem(
        _ context: RequestContext, _ args: Arguments, owner: String, _ ids: (list: Int64, item: Int64),
        _ body: (inout Change, inout ItemTarget) throws -> ItemChange
    ) throws -> StoredResult {
        try change(context, args, owner: owner) { change in
            var target = try ItemTarget.find(change.session, owner: owner, listID: ids.list, itemID: ids.item)
            return try body(&change, &target)
        }
    }

    /// The owner's keyed change of the item `args` names by `list_id` and `item_id`, its only
    /// members (as `shopping.remove_item` and `shopping.mark_unpurchased` take it).
    func changeItem(
        _ context: RequestContext, _ args: Arguments, owner: String, _ body: (inout Change, inout ItemTarget) throws -> ItemChange
    ) throws -> StoredResult {
        try args.allowOnly(["list_id", "item_id"])
        return try changeItem(context, args, owner: owner, try ItemTarget.ids(args), body)
    }
}

/// Which of an item's fields differ between two versions of it, by their wire names.
enum ItemDiff {
    static func fields(_ old: ItemRecord, _ new: ItemRecord) -> [String] {
        var changed: [String] = []
        if old.name != new.name { changed.append("name") }
        if old.unit != new.unit { changed.append("unit") }
        if old.plannedQuantity != new.plannedQuantity { changed.append("planned_quantity") }
        if old.purchasedQuantity != new.purchasedQuantity { changed.append("purchased_quantity") }
        if old.unitPrice != new.unitPrice { changed.append("unit_price") }
        return changed
    }
}
