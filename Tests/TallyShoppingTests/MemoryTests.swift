import Foundation
import TallyProtocol
import Testing

/// Shopping memory: what the previous shopping list left unbought starts the next one.
@Suite struct MemoryTests {
    @Test func carriesUnboughtItemsAndShortfalls() throws {
        let harness = try ShoppingHarness()
        let first = try harness.list("Week 1")
        let milk = try harness.item(first, "Milk", planned: 3, unit: "l")
        let bread = try harness.item(first, "Bread", planned: 1)
        let eggs = try harness.item(first, "Eggs", planned: 12)
        try harness.item(first, "Salt", planned: 0)
        try harness.buy(first, milk, price: "1.19", quantity: 1)  // 2 short
        try harness.buy(first, bread, price: "2.49")  // all bought
        _ = eggs  // not bought: all 12 carried
        let start = try harness.lastSequence()

        let second = try harness.call("shopping.create_list", ["kind": "shopping", "name": "Week 2", "currency": "EUR"])
        let items = try #require(second["items"]?.arrayValue)
        #expect(items.map { $0["name"] } == ["Milk", "Eggs"])
        #expect(items.map { $0["planned_quantity"] } == [2, 12])
        #expect(items[0]["unit"] == "l")
        #expect(items.allSatisfy { $0["purchased"] == false })
        let carried = try #require(second["carried_over"])
        #expect(carried["from_list_id"] == .integer(first))
        #expect(carried["items"]?.arrayValue?.map { $0["quantity"] } == [2, 12])
        #expect(carried["items"]?.arrayValue?.map { $0["from_item_id"] } == [.integer(milk), .integer(eggs)])

        #expect(try harness.types(after: start) == ["shopping.list_created", "shopping.items_carried_over"])
        let event = try #require(try harness.events().last)
        #expect(event.data["owner"] == "ann")
        #expect(event.data["list_id"] == second["id"])
        #expect(event.data["from_list_id"] == .integer(first))
        #expect(event.data["items"] == carried["items"])
        // The previous list is unchanged.
        #expect(try harness.get(first, includePurchased: true)["item_count"] == 4)
    }

    @Test func carriesOnlyFromThePreviousShoppingListAndMergesWithTheTemplate() throws {
        let harness = try ShoppingHarness()
        let weekly = try harness.list("Weekly", kind: "template")
        try harness.item(weekly, "milk ", planned: 2, unit: "l")
        try harness.item(weekly, "Bread")
        let old = try harness.list("Week 1")
        try harness.item(old, "Coffee")
        let previous = try harness.list("Week 2")  // carries Coffee from Week 1
        try harness.item(previous, "  MILK", planned: 1, unit: "l")
        // A new template records no carrying.
        let start = try harness.lastSequence()
        try harness.list("Monthly", kind: "template")
        #expect(try harness.types(after: start) == ["shopping.list_created"])

        let next = try harness.call("shopping.create_list", ["kind": "shopping", "name": "Week 3", "from_template": .integer(weekly)])
        // Milk from the template (2) plus one carried: one line of 3. Coffee from Week 2, which carried it.
        #expect(next.names == ["milk", "Bread", "Coffee"])
        #expect(next["items"]?.arrayValue?.map { $0["planned_quantity"] } == [3, 1, 1])
        #expect(next["carried_over"]?["from_list_id"] == .integer(previous))
        #expect(next["item_count"] == 3)
    }

    @Test func nothingToCarryRecordsNoCarryEvent() throws {
        let harness = try ShoppingHarness()
        let first = try harness.list("Week 1")
        let milk = try harness.item(first, "Milk")
        try harness.buy(first, milk, price: "1.00")
        let start = try harness.lastSequence()
        let second = try harness.call("shopping.create_list", ["kind": "shopping", "name": "Week 2", "currency": "EUR"])
        #expect(second["carried_over"] == nil)
        #expect(try harness.types(after: start) == ["shopping.list_created"])
        // Other owners' lists never carry.
        let bo = try harness.call("shopping.create_list", ["kind": "shopping", "name": "Mine", "currency": "EUR"], as: "bo")
        #expect(bo["items"] == [])
    }

    @Test func turnedOffCarriesNothing() throws {
        let harness = try ShoppingHarness()
        let first = try harness.list("Week 1")
        try harness.item(first, "Milk")
        try harness.preferences(["shopping_memory": false])
        let second = try harness.call("shopping.create_list", ["kind": "shopping", "name": "Week 2", "currency": "EUR"])
        #expect(second["items"] == [])
        #expect(second["carried_over"] == nil)
        #expect(try harness.types().contains("shopping.items_carried_over") == false)
    }
}
