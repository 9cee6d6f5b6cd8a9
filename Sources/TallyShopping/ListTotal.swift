import TallyMoney

/// A list's total: the sum of unit price × purchased quantity over its purchased, priced items,
/// in `Int128` minor units. It keeps to the currency's largest amount (12 digits before the
/// point), the limit of every amount Tally reads: changes that would pass it are refused, so a
/// stored list always has a total.
///
/// Why the arithmetic cannot overflow: a line is checked against the largest amount before it is
/// added, and the sum after every addition, so no partial sum passes twice the largest amount
/// (below 2 × 10^16), far inside 128 bits; a line itself is a product that `ItemRecord.line`
/// computes with overflow reported.
enum ListTotal {
    /// The total, or nil when a line or the sum would pass `currency.largestAmount`.
    static func of(_ items: [ItemRecord], in currency: Currency) -> Int128? {
        var lines: [Int128] = []
        for item in items where item.counts {
            guard let line = item.line, (0...currency.largestAmount).contains(line) else { return nil }
            lines.append(line)
        }
        return currency.total(lines)
    }

    /// The total, or the error a change that made it too large gets on `field`.
    static func checked(_ items: [ItemRecord], in currency: Currency, field: String) throws -> Int128 {
        guard let total = of(items, in: currency) else {
            throw ShoppingErrors.totalTooLarge(currency.code, largest: currency.format(currency.largestAmount), field: field)
        }
        return total
    }
}
