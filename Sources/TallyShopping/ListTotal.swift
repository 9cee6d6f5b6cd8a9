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
        of(lines: items.filter(\.counts).map(\.line), in: currency)
    }

    /// The total of the lines that count (`ListRecord.countingLines`; nil is a line past 128 bits),
    /// or nil when a line or the sum would pass `currency.largestAmount`.
    static func of(lines: [Int128?], in currency: Currency) -> Int128? {
        var checked: [Int128] = []
        for line in lines {
            guard let line, (0...currency.largestAmount).contains(line) else { return nil }
            checked.append(line)
        }
        return currency.total(checked)
    }

    /// The total, or the error a change that made it too large gets on `field`.
    static func checked(lines: [Int128?], in currency: Currency, field: String) throws -> Int128 {
        guard let total = of(lines: lines, in: currency) else {
            throw ShoppingErrors.totalTooLarge(currency.code, largest: currency.format(currency.largestAmount), field: field)
        }
        return total
    }
}
