import Foundation
import TallyProtocol
import Testing

/// Price comparison against the last price paid for the same item.
@Suite struct ComparisonTests {
    @Test func allFourOutcomesWithNormalizedNames() throws {
        let harness = try ShoppingHarness()
        let first = try harness.list("Week 1")
        let milk1 = try harness.item(first, "Milk")
        #expect(try harness.buy(first, milk1, price: "1.19")["comparison"] == ["outcome": "first_time", "price": "1.19", "currency": "EUR"])

        let second = try harness.list("Week 2")
        let milk2 = try harness.item(second, "  whole   MILK ")  // another item: first time
        #expect(try harness.buy(second, milk2, price: "1.50")["comparison"]?["outcome"] == "first_time")
        let milk3 = try harness.item(second, " milk")
        let start = try harness.lastSequence()
        let higher = try harness.buy(second, milk3, price: "1.29")
        #expect(higher["comparison"] == ["outcome": "higher", "price": "1.29", "previous_price": "1.19", "currency": "EUR", "previous_list_id": .integer(first)])
        #expect(try harness.types(after: start) == ["shopping.item_purchased", "shopping.price_changed"])
        let event = try #require(try harness.events().last)
        #expect(event.data == [
            "owner": "ann", "list_id": .integer(second), "item_id": .integer(milk3), "item_name": "milk", "currency": "EUR",
            "price": "1.29", "previous_price": "1.19", "previous_list_id": .integer(first), "direction": "higher",
        ])

        let third = try harness.list("Week 3")
        let milk4 = try harness.item(third, "MILK")
        let same = try harness.buy(third, milk4, price: "1.29")
        #expect(same["comparison"]?["outcome"] == "same")
        #expect(same["comparison"]?["previous_price"] == "1.29")
        // Changing the price of the purchased item compares again: lower than 1.29 (its own old price does not count).
        let mid = try harness.lastSequence()
        let lower = try harness.call("shopping.set_price", ["list_id": .integer(third), "item_id": .integer(milk4), "unit_price": "0.99"])
        #expect(lower["comparison"] == ["outcome": "lower", "price": "0.99", "previous_price": "1.29", "currency": "EUR", "previous_list_id": .integer(second)])
        #expect(try harness.types(after: mid) == ["shopping.item_updated", "shopping.price_changed"])
        #expect(try harness.events().last?.data["direction"] == "lower")
    }

    @Test func currenciesAndOwnersAreSeparate() throws {
        let harness = try ShoppingHarness()
        let euro = try harness.list("Berlin")
        try harness.buy(euro, try harness.item(euro, "Milk"), price: "1.19")
        let dollars = try harness.list("Boston", currency: "USD")
        #expect(try harness.buy(dollars, try harness.item(dollars, "Milk"), price: "2.00")["comparison"]?["outcome"] == "first_time")
        let bo = try harness.list("Bo's", owner: "bo")
        #expect(try harness.buy(bo, try harness.item(bo, "Milk", owner: "bo"), price: "5.00", owner: "bo")["comparison"]?["outcome"] == "first_time")
        #expect(try harness.types().contains("shopping.price_changed") == false)
    }

    @Test func noComparisonWithoutAPriceOrWhenTurnedOff() throws {
        let harness = try ShoppingHarness()
        let first = try harness.list("Week 1")
        try harness.buy(first, try harness.item(first, "Milk"), price: "1.19")
        let second = try harness.list("Week 2")
        let milk = try harness.item(second, "Milk")
        #expect(try harness.buy(second, milk)["comparison"] == nil, "no price, nothing to compare")
        // A price on an unpurchased item is not a purchase.
        let third = try harness.list("Week 3")
        let other = try harness.item(third, "Milk")
        #expect(try harness.call("shopping.set_price", ["list_id": .integer(third), "item_id": .integer(other), "unit_price": "2.00"])["comparison"] == nil)

        try harness.preferences(["price_comparison": false])
        let start = try harness.lastSequence()
        #expect(try harness.buy(second, milk, price: "1.99")["comparison"] == nil)
        #expect(try harness.types(after: start) == ["shopping.item_updated"], "no price_changed while turned off")
    }
}
