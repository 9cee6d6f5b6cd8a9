import Foundation
import TallyProtocol
import Testing

/// Auto-removal of purchased items from a list's view, and the owner's preferences.
@Suite struct ViewAndPreferencesTests {
    @Test func purchasedItemsDropOutWhenTheListIsOpenedAgain() throws {
        let harness = try ShoppingHarness()
        let list = try harness.list("Saturday")
        let milk = try harness.item(list, "Milk", planned: 2)
        try harness.item(list, "Bread")
        let opened = try harness.get(list)
        #expect(opened.names == ["Milk", "Bread"])
        #expect(opened["opened_at"] != nil)
        let start = try harness.lastSequence()
        // Bought while the list is open: the reply shows it bought, the next opening hides it.
        #expect(try harness.buy(list, milk, price: "1.19")["item"]?["purchased"] == true)
        let reopened = try harness.get(list)
        #expect(reopened.names == ["Bread"])
        #expect(reopened["hidden_items"] == 1)
        #expect(reopened["total"] == "2.38", "still counted")
        #expect(reopened["item_count"] == 2)
        let again = try harness.get(list)
        #expect(reopened["updated_at"] == again["updated_at"], "opening is not a change")
        let all = try harness.get(list, includePurchased: true)
        #expect(all.names == ["Milk", "Bread"])
        #expect(all["hidden_items"] == 0)
        #expect(try harness.count("SELECT COUNT(*) FROM shopping_item") == 2, "stored all along")
        #expect(try harness.types(after: start) == ["shopping.item_purchased"], "opening records no event")
        #expect(harness.error("shopping.get_list", ["list_id": .integer(list), "include_purchased": "yes"])?.field == "args.include_purchased")
    }

    @Test func turnedOffShowsEverything() throws {
        let harness = try ShoppingHarness()
        let list = try harness.list("Saturday")
        try harness.buy(list, try harness.item(list, "Milk"))
        try harness.preferences(["auto_remove_purchased": false])
        #expect(try harness.get(list).names == ["Milk"])
        #expect(try harness.get(list)["hidden_items"] == 0)
    }

    @Test func preferencesDefaultOnAndChangeOneAtATime() throws {
        let harness = try ShoppingHarness()
        let defaults = try harness.call("shopping.get_preferences", [:])
        #expect(defaults == ["owner": "ann", "shopping_memory": true, "price_comparison": true, "auto_remove_purchased": true])
        let set = try harness.call("shopping.set_preferences", ["price_comparison": false])
        #expect(set == ["owner": "ann", "shopping_memory": true, "price_comparison": false, "auto_remove_purchased": true])
        #expect(try harness.call("shopping.get_preferences", [:]) == set)
        #expect(try harness.call("shopping.get_preferences", [:], as: "bo")["price_comparison"] == true, "per owner")
        // Setting the same again changes nothing and records nothing.
        try harness.call("shopping.set_preferences", ["price_comparison": false, "shopping_memory": true])
        #expect(try harness.types() == ["shopping.preferences_changed"])
        let event = try #require(try harness.events().first)
        #expect(event.subject == "ann/preferences")
        #expect(event.data == ["owner": "ann", "shopping_memory": true, "price_comparison": false, "auto_remove_purchased": true, "changed": ["price_comparison"]])
        let nothing = harness.error("shopping.set_preferences", [:])
        #expect(nothing?.field == "args")
        #expect(nothing?.message == "shopping.set_preferences needs at least one of auto_remove_purchased, price_comparison, shopping_memory to set")
        #expect(harness.error("shopping.set_preferences", ["shopping_memory": "off"])?.field == "args.shopping_memory")
        #expect(harness.error("shopping.set_preferences", ["dark_mode": true])?.field == "args.dark_mode")
    }

    @Test func priceHistoryNewestFirst() throws {
        let harness = try ShoppingHarness()
        let first = try harness.list("Week 1")
        try harness.buy(first, try harness.item(first, "Milk", planned: 2), price: "1.19")
        let second = try harness.list("Week 2")
        let milk2 = try harness.item(second, " MILK ")
        try harness.buy(second, milk2, price: "1.29")
        try harness.item(second, "milk")  // not bought: not in the history
        let dollars = try harness.list("Boston", currency: "USD")
        try harness.buy(dollars, try harness.item(dollars, "milk"), price: "2.10")
        try harness.buy(dollars, try harness.item(dollars, "Bread"), price: "3.00")

        let history = try harness.call("shopping.price_history", ["name": "milk"])
        let purchases = try #require(history["purchases"]?.arrayValue)
        #expect(purchases.map { $0["price"] } == ["2.10", "1.29", "1.19"])
        #expect(purchases.map { $0["currency"] } == ["USD", "EUR", "EUR"])
        #expect(purchases.map { $0["list_name"] } == ["Boston", "Week 2", "Week 1"])
        #expect(purchases[1]["name"] == "MILK")
        #expect(purchases[2]["quantity"] == 2)
        #expect(purchases[0]["purchased_at"] != nil)
        let euros = try harness.call("shopping.price_history", ["name": "Milk", "currency": "EUR", "limit": 1])
        #expect(euros["purchases"]?.arrayValue?.map { $0["price"] } == ["1.29"])
        #expect(try harness.call("shopping.price_history", ["name": "milk"], as: "bo")["purchases"] == [])
        #expect(harness.error("shopping.price_history", [:])?.field == "args.name")
        // Unbuying takes a purchase out of the history.
        try harness.call("shopping.mark_unpurchased", ["list_id": .integer(second), "item_id": .integer(milk2)])
        #expect(try harness.call("shopping.price_history", ["name": "milk", "currency": "EUR"])["purchases"]?.arrayValue?.count == 1)
    }
}
