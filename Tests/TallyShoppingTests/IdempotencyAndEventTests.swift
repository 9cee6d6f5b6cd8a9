import Foundation
import TallyProtocol
import TallyShopping
import TallyTesting
import Testing

/// Retries with an idempotency_key apply once and record their events once; a command that fails
/// records nothing; the event feed pages.
@Suite struct IdempotencyAndEventTests {
    @Test func retriesApplyAndRecordOnce() throws {
        let harness = try ShoppingHarness()
        let create: JSONValue = ["kind": "shopping", "name": "Saturday", "currency": "EUR"]
        let first = try harness.call("shopping.create_list", create, key: "k-1")
        #expect(try harness.call("shopping.create_list", create, key: "k-1") == first)
        let list = try #require(first["id"])
        let add: JSONValue = ["list_id": list, "name": "Milk"]
        let added = try harness.call("shopping.add_item", add, key: "k-2")
        #expect(try harness.call("shopping.add_item", add, key: "k-2") == added)
        let buy: JSONValue = ["list_id": list, "item_id": added["item"]!["id"]!, "unit_price": "1.19"]
        let bought = try harness.call("shopping.mark_purchased", buy, key: "k-3")
        #expect(try harness.call("shopping.mark_purchased", buy, key: "k-3") == bought)
        #expect(try harness.count("SELECT COUNT(*) FROM shopping_list") == 1)
        #expect(try harness.count("SELECT COUNT(*) FROM shopping_item") == 1)
        #expect(try harness.types() == ["shopping.list_created", "shopping.item_added", "shopping.item_purchased"])
        // Keys are scoped by command and owner; a different request under a used key is refused.
        let error = harness.error("shopping.create_list", ["kind": "template", "name": "Weekly", "currency": "EUR"], key: "k-1")
        #expect(error?.code == .failedPrecondition)
        #expect(error?.field == "idempotency_key")
        #expect(try harness.call("shopping.create_list", ["kind": "template", "name": "Weekly", "currency": "EUR"], as: "bo", key: "k-1")["owner"] == "bo")
        let delete: JSONValue = ["list_id": list]
        let deleted = try harness.call("shopping.delete_list", delete, key: "k-4")
        #expect(try harness.call("shopping.delete_list", delete, key: "k-4") == deleted, "a retried delete is not not_found")
        #expect(try harness.types().suffix(2) == ["shopping.list_created", "shopping.list_deleted"])
    }

    @Test func aFailedCommandRollsBackItsChangesAndEvents() throws {
        let harness = try ShoppingHarness()
        let list = try harness.list("Yacht")
        let boat = try harness.item(list, "Boat", planned: 2)
        try harness.buy(list, boat, price: "999999999999.99", quantity: 1)
        let before = try harness.lastSequence()
        let itemsBefore = try harness.get(list, includePurchased: true)["items"]
        // The update is applied inside the transaction, then the total check throws: all of it goes.
        #expect(harness.error("shopping.update_item", ["list_id": .integer(list), "item_id": .integer(boat), "purchased_quantity": 2, "name": "Ship"], key: "r-1")?.code == .invalidArgument)
        #expect(try harness.lastSequence() == before)
        #expect(try harness.get(list, includePurchased: true)["items"] == itemsBefore)
        #expect(try harness.count("SELECT COUNT(*) FROM idempotency_key") == 0)
        // And the sequence continues without a gap.
        try harness.call("shopping.rename_list", ["list_id": .integer(list), "name": "Boat"])
        #expect(try harness.events().last?.sequence == before + 1)
    }

    @Test func theEventFeedPages() throws {
        let harness = try ShoppingHarness()
        let list = try harness.list("Saturday")
        for name in ["Milk", "Bread", "Eggs"] { try harness.item(list, name) }
        let feed = ServiceHarness(harness.service)
        let page = try feed.call("shopping.events", ["after": 1, "limit": 2], caller: ServiceHarness.serviceAccount)
        let events = try #require(page["events"]?.arrayValue)
        #expect(events.map { $0["sequence"] } == [2, 3])
        #expect(events.map { $0["type"] } == ["shopping.item_added", "shopping.item_added"])
        #expect(events[0]["data"]?["item"]?["name"] == "Milk")
        #expect(events[0]["specversion"] == "1.0")
        #expect(page["last_sequence"] == 4)
        #expect(try feed.call("shopping.events", ["after": 4], caller: ServiceHarness.serviceAccount)["events"] == [])
    }

    @Test func aSecondProcessOnTheSameFileContinuesTheSequence() throws {
        let harness = try ShoppingHarness()
        try harness.list("Saturday")
        let second = try harness.secondService()
        try ServiceHarness(second).call(
            "shopping.create_list", ["kind": "template", "name": "Weekly", "currency": "EUR"], caller: ShoppingHarness.caller("ann"))
        #expect(try harness.events().map(\.sequence) == [1, 2])
    }
}
