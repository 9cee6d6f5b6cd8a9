import GRDB
import TallyMoney

/// Price comparison: a purchase's unit price against the last price the owner paid for the same
/// item (names compared as `ItemName.key`), in the same currency, in any of the owner's lists:
/// the latest purchase before this one, by purchase time (then item id). Purchases without a
/// price do not count.
enum PriceComparison {
    static func compare(_ db: Database, _ target: ItemTarget) throws -> Comparison? {
        guard target.item.purchased, let price = target.item.unitPrice, let purchasedAt = target.item.purchasedAt else { return nil }
        let previous = try Row.fetchOne(
            db,
            sql: """
                SELECT i.unit_price_minor AS price, i.list_id AS list_id
                FROM shopping_item i JOIN shopping_list l ON l.id = i.list_id
                WHERE l.owner = ? AND l.currency = ? AND i.name_key = ? AND i.purchased
                  AND i.unit_price_minor IS NOT NULL AND i.id != ?
                  AND (i.purchased_at_ms < ? OR (i.purchased_at_ms = ? AND i.id < ?))
                ORDER BY i.purchased_at_ms DESC, i.id DESC LIMIT 1
                """,
            arguments: [
                target.list.owner, target.list.currency, target.item.nameKey, target.item.id, purchasedAt, purchasedAt, target.item.id,
            ])
        let currency = target.currency
        guard let previous else {
            return Comparison(outcome: .firstTime, price: currency.format(Int128(price)), previousPrice: nil, currency: currency.code, previousListID: nil)
        }
        let previousPrice: Int64 = previous["price"]
        let outcome: Comparison.Outcome = price > previousPrice ? .higher : price < previousPrice ? .lower : .same
        return Comparison(
            outcome: outcome, price: currency.format(Int128(price)), previousPrice: currency.format(Int128(previousPrice)),
            currency: currency.code, previousListID: previous["list_id"])
    }

    /// Compares when the owner has price comparison on, and records `shopping.price_changed` when
    /// the change made this purchase's price what it is and it differs from the last one.
    static func run(_ db: Database, _ target: ItemTarget, priceIsNew: Bool, store: ShoppingStore) throws -> Comparison? {
        guard try Preferences.of(db, owner: target.list.owner).priceComparison, let comparison = try compare(db, target) else { return nil }
        if priceIsNew, comparison.outcome == .higher || comparison.outcome == .lower,
            let previousPrice = comparison.previousPrice, let previousListID = comparison.previousListID
        {
            try store.record(
                db,
                .priceChanged(.init(
                    owner: target.list.owner, listID: target.list.id ?? 0, itemID: target.item.id ?? 0, itemName: target.item.name,
                    currency: comparison.currency, price: comparison.price, previousPrice: previousPrice,
                    previousListID: previousListID, direction: comparison.outcome.rawValue)),
                subject: target.list.subject)
        }
        return comparison
    }
}
