import Foundation
import TallyClient
import TallyProtocol
import TallyTesting
import Testing

/// The acceptance scenario with every real part: a gateway, a shopping worker, the
/// notifier and a `tally watch --json` subscriber, all processes; and an identity worker, where
/// the notifier trades its service token for the access token its catch-up calls carry. Ann buys milk dearer than last
/// week and sees exactly one alert; then cheaper bread, whose alert is the fence: the notifier
/// handles events in sequence order, so once the bread alert is in, a duplicate milk alert would be too.
@Suite struct PriceAlertEndToEndTests {
    /// Ann, user id 2, shopping with her token.
    private struct Shopper {
        let ann: SignedInClient

        init(_ stack: TallyStack, timeout: Duration) throws {
            ann = try stack.signedIn("ann", userID: "2", timeout: timeout)
        }

        @discardableResult
        func call(_ command: String, _ args: JSONValue, key: String? = nil) async throws -> JSONValue {
            try await ann.result(command, args, idempotencyKey: key)
        }

        /// A new shopping list with one item bought at `price`; returns the list id.
        @discardableResult
        func buy(_ item: String, at price: String, list: JSONValue, key: String? = nil) async throws -> JSONValue {
            let added = try await call("shopping.add_item", ["list_id": list, "name": .string(item)])
            let itemID = try #require(added["item"]?["id"])
            return try await call("shopping.mark_purchased", ["list_id": list, "item_id": itemID, "unit_price": .string(price)], key: key)
        }

        func newList(_ name: String) async throws -> JSONValue {
            let list = try await call("shopping.create_list", ["kind": "shopping", "name": .string(name), "currency": "EUR"])
            return try #require(list["id"])
        }
    }

    /// Last week's prices: milk 1.19, bread 2.49 (first purchases: no alert).
    private func lastWeek(_ shopper: Shopper) async throws {
        let list = try await shopper.newList("Last week")
        try await shopper.buy("Milk", at: "1.19", list: list)
        try await shopper.buy("Bread", at: "2.49", list: list)
    }

    /// Waits for the milk alert and the bread fence, and checks nothing else came.
    private func expectExactlyOneMilkAlert(_ watch: TallyProcess, _ stack: TallyStack) async throws {
        try await stack.waitUntil("the watcher shows the bread alert", timeout: .seconds(30)) {
            watchedAlerts(watch).contains { $0["kind"] == "price_lower" }
        }
        let alerts = watchedAlerts(watch)
        #expect(alerts.map { $0["kind"] } == ["price_higher", "price_lower"], "\(alerts)\n\(stack.logs)")
        #expect(alerts.first?["text"] == "Milk cost more than last time: 1.29 EUR (was 1.19 EUR)")
        #expect(alerts.allSatisfy { $0["owner"] == "2" }, "ann's, by the user id shopping recorded in the event")
        #expect(sequences(alerts) == [1, 2])
    }

    @Test func milkDearerThanLastWeekGivesExactlyOneAlert() async throws {
        try await TallyStack.with(workers: ["shopping": 1, "identity": 1]) { stack in
            try await stack.startNotifier()
            let watch = try stack.startWatch(["--since", "0"], token: try stack.accessToken(for: "ann", userID: "2", lifetime: .seconds(3600)))
            let shopper = try Shopper(stack, timeout: .seconds(10))
            try await lastWeek(shopper)
            let thisWeek = try await shopper.newList("This week")
            let milk = try await shopper.buy("Milk", at: "1.29", list: thisWeek)
            #expect(milk["comparison"]?["outcome"] == "higher")
            try await shopper.buy("Bread", at: "2.29", list: thisWeek)
            try await expectExactlyOneMilkAlert(watch, stack)
        }
    }

    @Test func theSameWithTheNotifierKilledAndRestartedInBetween() async throws {
        try await TallyStack.with(workers: ["shopping": 1, "identity": 1]) { stack in
            let notifier = try await stack.startNotifier()
            let watch = try stack.startWatch(["--since", "0"], token: try stack.accessToken(for: "ann", userID: "2", lifetime: .seconds(3600)))
            let shopper = try Shopper(stack, timeout: .seconds(10))
            try await lastWeek(shopper)
            // The dearer milk is bought while no notifier runs: its publish reaches nobody.
            await notifier.kill9()
            let thisWeek = try await shopper.newList("This week")
            try await shopper.buy("Milk", at: "1.29", list: thisWeek)
            try await stack.startNotifier()
            try await shopper.buy("Bread", at: "2.29", list: thisWeek)
            try await expectExactlyOneMilkAlert(watch, stack)
        }
    }

    @Test func theSameWithTheWorkerKilledAfterItsCommitBeforeItsPublish() async throws {
        try await TallyStack.with(workers: ["identity": 1]) { stack in
            let first = try stack.startWorker("shopping")
            try await stack.waitForWorkers("shopping", count: 1)
            try await stack.startNotifier()
            let watch = try stack.startWatch(["--since", "0"], token: try stack.accessToken(for: "ann", userID: "2", lifetime: .seconds(3600)))
            let shopper = try Shopper(stack, timeout: .seconds(120))
            try await lastWeek(shopper)
            let thisWeek = try await shopper.newList("This week")
            let added = try await shopper.call("shopping.add_item", ["list_id": thisWeek, "name": "Milk"])
            let milkID = try #require(added["item"]?["id"])

            // Swap in a worker that dies right after committing, before publishing or replying.
            #expect(await first.stop())
            let doomed = try stack.startWorker("shopping", extraArguments: ["--exit-after-commit"])
            try await stack.waitUntil("only the doomed worker serves shopping") {
                (try? await stack.serviceStatus("shopping"))?["workers"]?.intValue == 1 && doomed.isRunning
            }
            async let bought = shopper.call(
                "shopping.mark_purchased", ["list_id": thisWeek, "item_id": milkID, "unit_price": "1.29"],
                key: "milk-this-week")
            // The timeout only guards against a hang: a loaded machine makes the exit late, not wrong.
            #expect(await doomed.waitForExit(timeout: .seconds(90)), "the worker exits after its commit")
            try stack.startWorker("shopping")
            // The key lets the gateway send the purchase to the new worker, which answers from the
            // stored result: one purchase, one event, never published by anyone.
            #expect(try await bought["comparison"]?["outcome"] == "higher")
            try await shopper.buy("Bread", at: "2.29", list: thisWeek)
            try await expectExactlyOneMilkAlert(watch, stack)
        }
    }
}
