import Foundation
import TallyClient
import TallyProtocol
import TallyTesting
import Testing

/// The shopping service end to end: client → gateway → a `tally worker shopping` process on its
/// own `shopping.sqlite` → back, and its events read back through `shopping.events`.
@Suite struct ShoppingThroughGatewayTests {
    @Test func aWeekOfShopping() async throws {
        try await TallyStack.with(workers: ["shopping": 1]) { stack in
            let client = try stack.client()
            let serviceToken = try stack.serviceAccessToken()
            @discardableResult
            func call(_ command: String, _ args: JSONValue, key: String? = nil) async throws -> JSONValue {
                let token = command.hasSuffix(".events") ? serviceToken : nil
                let reply = try await client.call(command, args, idempotencyKey: key, token: token)
                return try #require(reply.result, "\(command): \(reply)")
            }
            let weekly = try await call("shopping.create_list", ["owner": "ann", "kind": "template", "name": "Weekly", "currency": "EUR"], key: "t-1")
            let templateID = try #require(weekly["id"])
            try await call("shopping.add_item", ["owner": "ann", "list_id": templateID, "name": "Milk", "planned_quantity": 2])
            try await call("shopping.add_item", ["owner": "ann", "list_id": templateID, "name": "Bread"])

            let saturday = try await call("shopping.create_list", ["owner": "ann", "kind": "shopping", "name": "Saturday", "from_template": templateID])
            let listID = try #require(saturday["id"])
            let items = try #require(saturday["items"]?.arrayValue)
            #expect(items.map { $0["name"] } == ["Milk", "Bread"])
            let first = try await call("shopping.mark_purchased", ["owner": "ann", "list_id": listID, "item_id": items[0]["id"]!, "unit_price": "1.19"], key: "p-1")
            #expect(first["comparison"]?["outcome"] == "first_time")
            #expect(first["list"]?["total"] == "2.38")
            // A retry of the same purchase, with its key, answers the same and records nothing new.
            let retry = try await call("shopping.mark_purchased", ["owner": "ann", "list_id": listID, "item_id": items[0]["id"]!, "unit_price": "1.19"], key: "p-1")
            #expect(retry == first)

            // Auto-removal: the bought milk drops out of the next opening.
            let opened = try await call("shopping.get_list", ["owner": "ann", "list_id": listID])
            #expect(opened["items"]?.arrayValue?.map { $0["name"] } == ["Bread"])
            #expect(opened["total"] == "2.38")

            // Shopping memory carries the bread; price comparison notices the dearer milk.
            let next = try await call("shopping.create_list", ["owner": "ann", "kind": "shopping", "name": "Next Saturday", "currency": "EUR"])
            #expect(next["carried_over"]?["items"]?.arrayValue?.map { $0["name"] } == ["Bread"])
            let milk = try await call("shopping.add_item", ["owner": "ann", "list_id": next["id"]!, "name": " MILK "])
            let dearer = try await call("shopping.mark_purchased", ["owner": "ann", "list_id": next["id"]!, "item_id": milk["item"]!["id"]!, "unit_price": "1.29"])
            #expect(dearer["comparison"] == ["outcome": "higher", "price": "1.29", "previous_price": "1.19", "currency": "EUR", "previous_list_id": listID])

            let history = try await call("shopping.price_history", ["owner": "ann", "name": "milk"])
            #expect(history["purchases"]?.arrayValue?.map { $0["price"] } == ["1.29", "1.19"])
            let lists = try await call("shopping.lists", ["owner": "ann", "limit": 2])
            #expect(lists["lists"]?.arrayValue?.count == 2)
            #expect(lists["next_cursor"] != nil)

            let refused = try await client.call("shopping.mark_purchased", ["owner": "ann", "list_id": templateID, "item_id": 1])
            #expect(refused.error?.code == .failedPrecondition, "\(refused)")

            // The events, a page at a time, gap-free.
            var types: [String] = []
            var after: Int64 = 0
            var last: Int64 = -1
            repeat {
                let page = try await call("shopping.events", ["after": .integer(after), "limit": 3])
                let events = page["events"]?.arrayValue ?? []
                for event in events {
                    #expect(event["sequence"]?.intValue == after + 1)
                    after = event["sequence"]?.intValue ?? after
                    types.append(event["type"]?.stringValue ?? "")
                }
                last = page["last_sequence"]?.intValue ?? 0
                if events.isEmpty { break }
            } while after < last
            #expect(types == [
                "shopping.list_created", "shopping.item_added", "shopping.item_added", "shopping.list_created",
                "shopping.item_purchased", "shopping.list_created", "shopping.items_carried_over", "shopping.item_added",
                "shopping.item_purchased", "shopping.price_changed",
            ])
            #expect(last == 10)
        }
    }
}
