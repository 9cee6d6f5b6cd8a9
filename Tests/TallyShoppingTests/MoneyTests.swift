import Foundation
import TallyMoney
import TallyProtocol
@testable import TallyShopping
import TallyStorage
import Testing

/// Prices, lines and totals at the edges of what an amount may be: 12 digits before the point in
/// every currency, 0 to 4 after it, in `Int128` minor units.
@Suite struct MoneyTests {
    /// A currency's largest price, one minor unit more, and one minor unit.
    struct Edge: Sendable, CustomTestStringConvertible {
        let currency: String
        let largest: String
        let pastLargest: String
        let smallest: String

        var testDescription: String { currency }
    }

    static let edges = [
        Edge(currency: "JPY", largest: "999999999999", pastLargest: "1000000000000", smallest: "1"),
        Edge(currency: "EUR", largest: "999999999999.99", pastLargest: "1000000000000.00", smallest: "0.01"),
        Edge(currency: "BHD", largest: "999999999999.999", pastLargest: "1000000000000.000", smallest: "0.001"),
        Edge(currency: "CLF", largest: "999999999999.9999", pastLargest: "1000000000000.0000", smallest: "0.0001"),
    ]

    @Test(arguments: edges)
    func aPriceAtTheLargestAmountIsKeptAndOneUnitMoreIsRefused(_ edge: Edge) throws {
        let harness = try ShoppingHarness()
        let list = try harness.list("Yacht", currency: edge.currency)
        let yacht = try harness.item(list, "Yacht")
        let bought = try harness.buy(list, yacht, price: edge.largest)
        #expect(bought["item"]?["unit_price"]?.stringValue == edge.largest)
        #expect(bought["item"]?["line_total"]?.stringValue == edge.largest)
        #expect(bought["list"]?["total"]?.stringValue == edge.largest)

        let before = try harness.lastSequence()
        for command in ["shopping.set_price", "shopping.mark_purchased"] {
            let error = harness.error(
                command, ["list_id": .integer(list), "item_id": .integer(yacht), "unit_price": .string(edge.pastLargest)])
            #expect(error?.code == .invalidArgument, "\(command) \(edge.pastLargest)")
            #expect(error?.field == "args.unit_price")
            #expect(error?.message.contains("unit_price") == true, "\(String(describing: error?.message))")
        }
        #expect(try harness.lastSequence() == before, "refused prices record nothing")
        #expect(try harness.get(list, includePurchased: true)["total"]?.stringValue == edge.largest)
    }

    @Test(arguments: edges)
    func aListTotalsUpToTheLargestAmountAndNoFurther(_ edge: Edge) throws {
        let harness = try ShoppingHarness()
        let list = try harness.list("Fleet", currency: edge.currency)
        // Three thirds of the largest amount (whose minor units are 10^n − 1, a multiple of 3).
        let third = String(edge.largest.map { $0 == "9" ? "3" : $0 })
        for name in ["Yacht", "Jet", "Island"] {
            try harness.buy(list, try harness.item(list, name), price: third)
        }
        #expect(try harness.get(list, includePurchased: true)["total"]?.stringValue == edge.largest)

        // The smallest price more is one minor unit past it: refused, on the field that did it.
        let coin = try harness.item(list, "Coin")
        let error = harness.error(
            "shopping.mark_purchased", ["list_id": .integer(list), "item_id": .integer(coin), "unit_price": .string(edge.smallest)])
        #expect(error?.code == .invalidArgument)
        #expect(error?.field == "args.unit_price")
        #expect(error?.message == "the list's total would pass \(edge.largest) \(edge.currency), the largest amount a list can total")
        #expect(try harness.get(list, includePurchased: true)["total"]?.stringValue == edge.largest)
        #expect(try harness.get(list, includePurchased: true)["items"]?[3]?["purchased"] == false, "the refused purchase left nothing behind")
    }

    /// With 3 or 4 minor digits the largest price times the largest quantity passes 64 bits
    /// (10^19 fils, 10^20 ten-thousandths): the line is computed exactly and refused for the
    /// total's limit, on the quantity that made it.
    @Test(arguments: ["BHD", "CLF"])
    func aLinePastSixtyFourBitsIsRefusedNotWrapped(_ currency: String) throws {
        let harness = try ShoppingHarness()
        let edge = try #require(Self.edges.first { $0.currency == currency })
        let list = try harness.list("Gold", currency: currency)
        let gold = try harness.item(list, "Gold")
        try harness.call("shopping.set_price", ["list_id": .integer(list), "item_id": .integer(gold), "unit_price": .string(edge.largest)])
        let error = harness.error(
            "shopping.mark_purchased", ["list_id": .integer(list), "item_id": .integer(gold), "purchased_quantity": 10_000])
        #expect(error?.code == .invalidArgument)
        #expect(error?.field == "args.purchased_quantity")
        #expect(try harness.buy(list, gold, quantity: 1)["list"]?["total"]?.stringValue == edge.largest)
    }

    /// Sums the API cannot reach (every line is checked first), from the arithmetic itself: many
    /// lines whose sum passes 64 bits give no total rather than a wrong one, and a line whose
    /// product passes 128 bits is a store failure rather than a trap.
    @Test func totalsPastSixtyFourBitsAndLinesPastOneHundredTwentyEightGiveNoTotal() throws {
        let clf = try #require(Currency.lookup("CLF"))
        let largest = clf.largestAmount
        #expect(largest == 9_999_999_999_999_999)
        // 500 lines (the most a list holds) that add up to the largest amount exactly.
        let lines = try [Self.item(price: largest - 499 * 20_000_000_000_000, quantity: 1)]
            + (1..<500).map { _ in try Self.item(price: 10_000_000_000_000, quantity: 2) }
        #expect(try ListTallies.of(lines).total(in: clf) == largest)
        // A thousand largest lines sum to about 10^19, past Int64.max (about 9.2 × 10^18).
        let many = try (0..<1000).map { _ in try Self.item(price: largest, quantity: 1) }
        #expect(Int128(Int64.max) < 1000 * largest)
        #expect(try ListTallies.of(many).total == 1000 * largest)
        #expect(try ListTallies.of(many).total(in: clf) == nil)
        // Taking lines out again brings the total back within the limit.
        var tallies = try ListTallies.of(many)
        for item in many.dropFirst() { try tallies.remove(item) }
        #expect(tallies == ListTallies(items: 1, purchased: 1, total: largest))
        // A stored price no request can set: its line overflows 128 bits.
        #expect(try Self.item(price: Int128.max / 2, quantity: 3).line == nil)
        #expect(throws: (any Error).self) { try ListTallies.of([try Self.item(price: Int128.max / 2, quantity: 3)]) }
        #expect(try ListTallies.of([try Self.item(price: -1, quantity: 1)]).total(in: clf) == nil, "a negative line is no line")
    }

    /// A purchased item with `price` as its row would hold it.
    static func item(price: Int128, quantity: Int64) throws -> ItemRecord {
        try ItemRecord(row: SQLRow(
            columns: [
                "id", "list_id", "name", "name_key", "unit", "planned_quantity", "purchased_quantity", "purchased",
                "unit_price_minor", "purchased_at_ms", "created_at_ms", "updated_at_ms",
            ],
            values: [
                .integer(1), .integer(1), .text("Gold"), .text("gold"), .null, .integer(quantity), .integer(quantity), .bool(true),
                .money(price), .timestamp(0), .timestamp(0), .timestamp(0),
            ]))
    }
}
