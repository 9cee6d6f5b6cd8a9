import TallyMoney
import TallyStorage

/// Price comparison: a purchase's unit price against the last price the owner paid for the same
/// item (names compared as `ItemName.key`), in the same currency, in any of the owner's lists:
/// the latest purchase before this one, by purchase time (then item id). Purchases without a
/// price do not count.
enum PriceComparison {
    static func compare(_ session: any SQLSession, _ target: ItemTarget) throws -> Comparison? {
        guard target.item.purchased, let price = target.item.unitPrice, let purchasedAt = target.item.purchasedAt else { return nil }
        let item = target.item
        let previous = try session.fetchOne("""
            SELECT i.unit_price_minor AS price, i.list_id AS list_id
            FROM shopping_item i JOIN shopping_list l ON l.id = i.list_id
            WHERE l.owner = \(target.list.owner) AND l.currency = \(target.list.currency) AND i.name_key = \(item.nameKey)
              AND i.purchased AND i.unit_price_minor IS NOT NULL AND i.id <> \(item.id)
              AND (i.purchased_at_ms < \(timestamp: purchasedAt) OR (i.purchased_at_ms = \(timestamp: purchasedAt) AND i.id < \(item.id)))
            ORDER BY i.purchased_at_ms DESC, i.id DESC LIMIT 1
            """)
        let currency = target.currency
        guard let previous else {
            return Comparison(outcome: .firstTime, price: currency.format(price), previousPrice: nil, currency: currency.code, previousListID: nil)
        }
        let previousPrice: Int128 = try previous["price"]
        let outcome: Comparison.Outcome = price > previousPrice ? .higher : price < previousPrice ? .lower : .same
        return Comparison(
            outcome: outcome, price: currency.format(price), previousPrice: currency.format(previousPrice),
            currency: currency.code, previousListID: try previous["list_id"])
    }

    /// Compares when the owner has price comparison on, and records `shopping.price_changed` when
    /// the change made this purchase's price what it is and it differs from the last one.
    static func run(_ change: inout Change, _ target: ItemTarget, priceIsNew: Bool) throws -> Comparison? {
        let session = change.session
        guard try Preferences.of(session, owner: target.list.owner).priceComparison, let comparison = try compare(session, target) else {
            return nil
        }
        if priceIsNew, comparison.outcome == .higher || comparison.outcome == .lower,
            let previousPrice = comparison.previousPrice, let previousListID = comparison.previousListID
        {
            change.record(ShoppingEvent.priceChanged(.init(
                owner: target.list.owner, listID: target.list.id, itemID: target.item.id, itemName: target.item.name,
                currency: comparison.currency, price: comparison.price, previousPrice: previousPrice,
                previousListID: previousListID, direction: comparison.outcome.rawValue)))
        }
        return comparison
    }
}
