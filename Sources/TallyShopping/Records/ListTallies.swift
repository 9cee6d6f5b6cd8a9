import TallyMoney
import TallyStorage

/// What a list's summary counts, kept in the list's row (`item_count`, `purchased_count`,
/// `total_minor`) and moved by every change to one of its items. A change to an item reads and
/// writes that one row, where it read every purchased item of the list before: at 500 items,
/// most of what a purchase cost.
///
/// `total` is the sum of unit price × purchased quantity over the purchased items with a price,
/// in `Int128` minor units. Every change keeps it to the currency's largest amount (12 digits
/// before the point, the limit of every amount Tally reads): changes that would pass it are
/// refused, so a stored list always has a total.
///
/// Why the arithmetic cannot overflow: a line is a product that `ItemRecord.line` computes with
/// overflow reported, and a list holds at most `ItemRecord.mostPerList` items, each of whose
/// lines is at most the largest price (below 10^16 minor units) × the largest quantity (10^4):
/// far inside 128 bits. A stored row no request can write (a line past 128 bits) is refused as a store failure.
struct ListTallies: Equatable, Sendable {
    var items = 0
    var purchased = 0
    /// Minor units of the list's currency; within `0...currency.largestAmount` on every stored list.
    var total: Int128 = 0

    /// An item joins the list (or comes back in its new state, after `remove` took its old one).
    mutating func add(_ item: ItemRecord) throws {
        items += 1
        if item.purchased { purchased += 1 }
        if item.counts { total = try Self.sum(total, try Self.line(of: item), subtracting: false) }
    }

    /// An item leaves the list, as it was stored.
    mutating func remove(_ item: ItemRecord) throws {
        items -= 1
        if item.purchased { purchased -= 1 }
        if item.counts { total = try Self.sum(total, try Self.line(of: item), subtracting: true) }
    }

    /// The tallies of `items`, counted from scratch.
    static func of(_ items: some Sequence<ItemRecord>) throws -> ListTallies {
        var tallies = ListTallies()
        for item in items { try tallies.add(item) }
        return tallies
    }

    /// The total, or nil when it is outside `0...currency.largestAmount`.
    func total(in currency: Currency) -> Int128? {
        (0...currency.largestAmount).contains(total) ? total : nil
    }

    /// The total, or the error a change that made it too large gets on `field`.
    func checkedTotal(in currency: Currency, field: String) throws -> Int128 {
        guard let total = total(in: currency) else {
            throw ShoppingErrors.totalTooLarge(currency.code, largest: currency.format(currency.largestAmount), field: field)
        }
        return total
    }

    private static func line(of item: ItemRecord) throws -> Int128 {
        guard let line = item.line else {
            throw StoredDataFailure("item \(item.id) has a price whose line passes 128 bits")
        }
        return line
    }

    private static func sum(_ total: Int128, _ line: Int128, subtracting: Bool) throws -> Int128 {
        let (sum, overflow) = subtracting ? total.subtractingReportingOverflow(line) : total.addingReportingOverflow(line)
        guard !overflow else { throw StoredDataFailure("a list's total passes 128 bits") }
        return sum
    }
}
