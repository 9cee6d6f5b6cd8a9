import Foundation
import TallyProtocol
import TallyTesting
import Testing

/// The notifier's catch-up calls `<service>.events`, which only callers with the `service` role
/// may make: it trades its service token for access tokens at the identity service.
@Suite struct NotifierCatchUpWithAuthTests {
    @Test func eventsFromBeforeTheNotifierStartedArriveThroughAuthenticatedCatchUp() async throws {
        try await TallyStack.with(workers: ["identity": 1, "shopping": 1]) { stack in
            let client = try stack.client(timeout: TallyStack.identityTimeout)
            func call(_ command: String, _ args: JSONValue) async throws -> JSONValue {
                let reply = try await client.call(command, args)
                return try #require(reply.result, "\(command): \(reply)")
            }
            // Milk at 1.19, then dearer at 1.29, while no notifier runs: only catch-up can see it.
            for (name, price) in [("Last week", "1.19"), ("This week", "1.29")] {
                let list = try await call("shopping.create_list", ["owner": "ann", "kind": "shopping", "name": .string(name), "currency": "EUR"])
                let item = try await call("shopping.add_item", ["owner": "ann", "list_id": list["id"] ?? .null, "name": "Milk"])
                _ = try await call(
                    "shopping.mark_purchased",
                    ["owner": "ann", "list_id": list["id"] ?? .null, "item_id": item["item"]?["id"] ?? .null, "unit_price": .string(price)])
            }
            let notifier = try await stack.startNotifier()
            try await stack.waitUntil("the notifier has caught up and stored the price alert") {
                let alerts = try? await client.call("alerts.list", ["after": 0])
                return alerts?.result?["alerts"]?.arrayValue?.contains { $0["kind"] == "price_higher" } == true
            }
            #expect(!notifier.log.contains("unauthenticated"), "\(notifier.log)")
        }
    }

    @Test func aRevokedServiceTokenStopsCatchUp() async throws {
        try await TallyStack.with(workers: ["identity": 1, "accounts": 1]) { stack in
            try await stack.addUser("olga", roles: ["admin"])
            let olga = try await stack.logIn("olga")
            let notifier = try await stack.startNotifier()
            let client = try stack.client(timeout: TallyStack.identityTimeout)
            let revoked = try await client.call("identity.revoke_service_token", ["name": "notifier"], token: olga.accessToken)
            #expect(revoked.result == ["ended_sessions": 1], "\(revoked)")
            // A restarted notifier has no access token left to use: it must trade, and is refused.
            await notifier.kill9()
            let restarted = try await stack.startNotifier()
            try await stack.waitUntil("the notifier says its service token was revoked") {
                restarted.log.contains("this service token was revoked")
            }
        }
    }
}
