import Foundation
import TallyProtocol
import Testing

/// Items: add, update, remove, mark purchased and unpurchased, set the price; totals exact.
@Suite struct ItemTests {
    @Test func addUpdateRemove() throws {
        let harness = try ShoppingHarness()
        let list = try harness.list("Saturday")
        let start = try harness.lastSequence()
        let added = try harness.call("shopping.add_item", ["list_id": .integer(list), "name": " Oat milk ", "unit": "l"])
        let item = try #require(added["item"])
        #expect(item["name"] == "Oat milk")
        #expect(item["planned_quantity"] == 1, "one by default")
        #expect(item["purchased_quantity"] == 0)
        #expect(item["purchased"] == false)
        #expect(item["unit"] == "l")
        #expect(added["list"]?["item_count"] == 1)
        let id = try #require(item["id"])

        let updated = try harness.call(
            "shopping.update_item", ["list_id": .integer(list), "item_id": id, "planned_quantity": 4, "unit": "", "name": "Milk"])
        #expect(updated["item"]?["planned_quantity"] == 4)
        #expect(updated["item"]?["unit"] == nil, "an empty unit removes it")
        #expect(updated["item"]?["name"] == "Milk")
        // Nothing to change: no event.
        try harness.call("shopping.update_item", ["list_id": .integer(list), "item_id": id, "planned_quantity": 4])
        let removed = try harness.call("shopping.remove_item", ["list_id": .integer(list), "item_id": id])
        #expect(removed["item"]?["name"] == "Milk")
        #expect(removed["list"]?["item_count"] == 0)
        #expect(try harness.types(after: start) == ["shopping.item_added", "shopping.item_updated", "shopping.item_removed"])
        let update = try #require(try harness.events().first { $0.type == "shopping.item_updated" })
        #expect(update.data["changed"] == ["name", "unit", "planned_quantity"])
        #expect(update.data["list_id"] == .integer(list))
        #expect(update.data["currency"] == "EUR")
    }

    /// A list holds at most 500 items: the 500th is added, the 501st refused with the list named.
    @Test func aFullListRefusesOneMoreItem() throws {
        let harness = try ShoppingHarness()
        let list = try harness.list("Party")
        for index in 1..<500 { try harness.item(list, "Item \(index)") }
        let last = try harness.call("shopping.add_item", ["list_id": .integer(list), "name": "Item 500"])
        #expect(last["list"]?["item_count"] == 500)
        let refused = harness.error("shopping.add_item", ["list_id": .integer(list), "name": "Item 501"])
        #expect(refused?.code == .resourceExhausted)
        #expect(refused?.field == "args.list_id")
        #expect(refused?.message.contains("already holds 500 items") == true, "\(String(describing: refused))")
        #expect(try harness.get(list)["item_count"] == 500)
    }

    /// An item change answers with its list's summary, as `shopping.get_list` shows the list:
    /// purchased items count whether or not they have a price, and only priced ones make the total.
    @Test func anItemChangesSummaryCountsPurchasesWithAndWithoutAPrice() throws {
        let harness = try ShoppingHarness()
        let list = try harness.list("Saturday")
        let bread = try harness.item(list, "Bread")
        let milk = try harness.item(list, "Milk", planned: 2)
        try harness.item(list, "Eggs")
        try harness.buy(list, bread)
        let bought = try harness.buy(list, milk, price: "1.19")
        #expect(bought["list"]?["purchased_count"] == 2)
        #expect(bought["list"]?["total"] == "2.38")
        let added = try harness.call("shopping.add_item", ["list_id": .integer(list), "name": "Butter"])
        let summary = try #require(added["list"])
        #expect(summary["item_count"] == 4)
        #expect(summary["purchased_count"] == 2)
        #expect(summary["total"] == "2.38")
        let shown = try harness.get(list)
        for field in ["item_count", "purchased_count", "total"] {
            #expect(summary[field] == shown[field], "\(field): the change's summary is the list's")
        }
    }

    @Test func itemErrors() throws {
        let harness = try ShoppingHarness()
        let list = try harness.list("Saturday")
        let template = try harness.list("Weekly", kind: "template")
        let item = try harness.item(list, "Milk")
        let templateItem = try harness.item(template, "Milk")
        let other = try harness.list("Sunday")
        let start = try harness.lastSequence()
        let l: JSONValue = .integer(list), i: JSONValue = .integer(item)
        let cases: [(String, JSONValue, String, ErrorCode)] = [
            ("shopping.add_item", ["list_id": l], "args.name", .invalidArgument),
            ("shopping.add_item", ["list_id": l, "name": "Eggs", "planned_quantity": -1], "args.planned_quantity", .invalidArgument),
            ("shopping.add_item", ["list_id": l, "name": "Eggs", "planned_quantity": 10001], "args.planned_quantity", .invalidArgument),
            ("shopping.add_item", ["list_id": 999, "name": "Eggs"], "args.list_id", .notFound),
            ("shopping.update_item", ["list_id": l, "item_id": i], "args", .invalidArgument),
            ("shopping.update_item", ["list_id": .integer(other), "item_id": i, "name": "X"], "args.item_id", .notFound),
            ("shopping.update_item", ["list_id": l, "item_id": i, "purchased_quantity": "2"], "args.purchased_quantity", .invalidArgument),
            ("shopping.remove_item", ["list_id": l, "item_id": 999], "args.item_id", .notFound),
            ("shopping.mark_purchased", ["list_id": l, "item_id": i, "unit_price": "1.234"], "args.unit_price", .invalidArgument),
            ("shopping.mark_purchased", ["list_id": l, "item_id": i, "unit_price": "-1"], "args.unit_price", .invalidArgument),
            ("shopping.mark_purchased", ["list_id": .integer(template), "item_id": .integer(templateItem)], "args.list_id", .failedPrecondition),
            ("shopping.set_price", ["list_id": l, "item_id": i], "args.unit_price", .invalidArgument),
            ("shopping.set_price", ["list_id": .integer(template), "item_id": .integer(templateItem), "unit_price": "1"], "args.list_id", .failedPrecondition),
            ("shopping.mark_unpurchased", ["list_id": .integer(template), "item_id": .integer(templateItem)], "args.list_id", .failedPrecondition),
        ]
        for (command, args, field, code) in cases {
            let error = harness.error(command, args)
            #expect(error?.field == field, "\(command) \(args): \(String(describing: error))")
            #expect(error?.code == code, "\(command) \(args)")
        }
        // Another person's list is as absent as one that does not exist.
        #expect(harness.error("shopping.add_item", ["list_id": l, "name": "Eggs"], as: "bo") == TallyError(
            .notFound, "you have no list \(list)", field: "args.list_id"))
        #expect(try harness.lastSequence() == start, "refused changes record nothing")
    }

    @Test func totalsAreExactInMinorUnits() throws {
        let harness = try ShoppingHarness()
        let list = try harness.list("Saturday")
        let milk = try harness.item(list, "Milk", planned: 3)
        let bread = try harness.item(list, "Bread")
        let eggs = try harness.item(list, "Eggs", planned: 12)
        // 0.1 three times is 0.30 exactly, as Double would not give it.
        #expect(try harness.buy(list, milk, price: "0.10")["list"]?["total"] == "0.30")
        let bought = try harness.buy(list, bread, price: "2.49", quantity: 2)
        #expect(bought["item"]?["line_total"] == "4.98")
        #expect(bought["list"]?["total"] == "5.28")
        // An unpurchased item with a price does not count.
        try harness.call("shopping.set_price", ["list_id": .integer(list), "item_id": .integer(eggs), "unit_price": "0.35"])
        #expect(try harness.get(list, includePurchased: true)["total"] == "5.28")
        // Purchased without a price counts nothing until priced.
        #expect(try harness.buy(list, eggs)["list"]?["total"] == "9.48", "12 × 0.35 after all: the price set before buying is kept")
        let unbought = try harness.call("shopping.mark_unpurchased", ["list_id": .integer(list), "item_id": .integer(bread)])
        #expect(unbought["item"]?["purchased_quantity"] == 0)
        #expect(unbought["item"]?["unit_price"] == "2.49", "the price is kept")
        #expect(unbought["list"]?["total"] == "4.50")

        let yen = try harness.list("Tokyo", currency: "JPY")
        let rice = try harness.item(yen, "Rice", planned: 3)
        #expect(try harness.buy(yen, rice, price: "398")["list"]?["total"] == "1194")
        #expect(harness.error("shopping.set_price", ["list_id": .integer(yen), "item_id": .integer(rice), "unit_price": "398.5"])?.field == "args.unit_price")
        let dinar = try harness.list("Manama", currency: "BHD")
        let tea = try harness.item(dinar, "Tea", planned: 7)
        #expect(try harness.buy(dinar, tea, price: "0.125")["list"]?["total"] == "0.875")
    }

    @Test func aTotalPastTwelveDigitsIsRefused() throws {
        let harness = try ShoppingHarness()
        let list = try harness.list("Yacht")
        let yacht = try harness.item(list, "Yacht", planned: 2)
        try harness.buy(list, yacht, price: "999999999999.99", quantity: 1)
        let error = harness.error("shopping.update_item", ["list_id": .integer(list), "item_id": .integer(yacht), "purchased_quantity": 2])
        #expect(error?.code == .invalidArgument)
        #expect(error?.field == "args.purchased_quantity")
        #expect(try harness.get(list, includePurchased: true)["total"] == "999999999999.99")
    }

    @Test func markPurchasedDefaultsToThePlannedQuantityAndRecordsItsEvents() throws {
        let harness = try ShoppingHarness()
        let list = try harness.list("Saturday")
        let milk = try harness.item(list, "Milk", planned: 3)
        let start = try harness.lastSequence()
        let bought = try harness.buy(list, milk, price: "1.19")
        #expect(bought["item"]?["purchased"] == true)
        #expect(bought["item"]?["purchased_quantity"] == 3)
        #expect(bought["item"]?["purchased_at"] != nil)
        #expect(bought["comparison"] == ["outcome": "first_time", "price": "1.19", "currency": "EUR"])
        // Again with a smaller quantity: an update, keeping the purchase time.
        let again = try harness.buy(list, milk, quantity: 2)
        #expect(again["item"]?["purchased_quantity"] == 2)
        #expect(again["item"]?["purchased_at"] == bought["item"]?["purchased_at"])
        // And again with nothing new: no event.
        try harness.buy(list, milk)
        try harness.call("shopping.mark_unpurchased", ["list_id": .integer(list), "item_id": .integer(milk)])
        try harness.call("shopping.mark_unpurchased", ["list_id": .integer(list), "item_id": .integer(milk)])
        #expect(try harness.types(after: start) == ["shopping.item_purchased", "shopping.item_updated", "shopping.item_unpurchased"])
        #expect(try harness.events().last?.data["item"]?["purchased"] == false)
    }
}
