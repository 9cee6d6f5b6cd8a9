import Foundation
import TallyObservability
import TallyProtocol
import TallyTesting
import Testing

/// Two notifiers on one PostgreSQL database, every process real: a shopping worker publishes
/// every event to both, each event's alert is stored once (the database de-duplicates, not
/// either notifier), and a `tally watch` on either notifier shows every alert once. The two take
/// turns to write (`NotifierStore.write`), so the database aborts none of their transactions for
/// a conflict.
@Suite(.enabled(if: PostgresCluster.isInstalled, Comment(rawValue: PostgresCluster.whyUnavailable ?? "")))
struct ManyNotifiersTests {
    @Test func twoNotifiersOnOneDatabaseStoreEachAlertOnceAndBothWatchesShowEveryAlert() async throws {
        try await TallyStack.with(TallyStack.Options(workers: ["identity": 1], database: .postgres)) { stack in
            let second = stack.notifierEndpoints("second")
            let metrics = try (0..<2).map { _ in try #require(HTTPAddress("127.0.0.1:\(try freeLoopbackPort())")) }
            let notifiers = [
                try await stack.startNotifier(extraArguments: ["--metrics", "\(metrics[0])"]),
                try await stack.startNotifier(endpoints: second, extraArguments: ["--metrics", "\(metrics[1])"]),
            ]
            try await stack.startWorker("shopping", extraArguments: ["--events-endpoint", "\(stack.events),\(second.events)"])
                .waitUntilReady()
            let token = try stack.accessToken(for: "ann", userID: "2", lifetime: .seconds(3600))
            let watches = [
                try stack.startWatch(["--since", "0"], token: token),
                try stack.startWatch(["--since", "0"], token: token, alertsEndpoint: second.alerts),
            ]
            let ann = try stack.signedIn("ann", userID: "2")
            // Raw subscribers show what each notifier publishes, which a watch would hide: it
            // fetches what it misses from alerts.list, and drops what it has already shown.
            let raw = [
                RawSubscriber(endpoint: stack.alertsEndpoint, prefix: "alert.", context: stack.context),
                RawSubscriber(endpoint: second.alerts, prefix: "alert.", context: stack.context),
            ]
            do {
                try await stack.waitUntil("both raw subscribers hear their notifier's heartbeat") { raw.allSatisfy(\.heardHeartbeat) }

                func buy(_ item: String, at price: String, list: JSONValue) async throws {
                    let added = try await ann.result("shopping.add_item", ["list_id": list, "name": .string(item)])
                    let itemID = try #require(added["item"]?["id"])
                    try await ann.result("shopping.mark_purchased", ["list_id": list, "item_id": itemID, "unit_price": .string(price)])
                }
                func newList(_ name: String) async throws -> JSONValue {
                    try #require(try await ann.result("shopping.create_list", ["kind": "shopping", "name": .string(name), "currency": "EUR"])["id"])
                }
                // Last week's prices (first purchases: no alert); this week five items dearer, then
                // tea cheaper: the last alert, the fence.
                let items = ["Milk", "Bread", "Eggs", "Butter", "Cheese"]
                let lastWeek = try await newList("Last week")
                for item in items + ["Tea"] { try await buy(item, at: "2.00", list: lastWeek) }
                let thisWeek = try await newList("This week")
                for item in items { try await buy(item, at: "2.50", list: thisWeek) }
                try await buy("Tea", at: "1.50", list: thisWeek)

                for (index, watch) in watches.enumerated() {
                    try await stack.waitUntil("watch \(index + 1) shows the tea alert", timeout: .seconds(30)) {
                        watchedAlerts(watch).contains { $0["kind"] == "price_lower" }
                    }
                }
                try await stack.waitUntil("both notifiers have published the tea alert") {
                    raw.allSatisfy { sequences($0.received.map(\.body)).contains(6) }
                }
                let expectedKinds: [JSONValue] = Array(repeating: "price_higher", count: items.count) + ["price_lower"]
                let listed = try await ann.result("alerts.list", ["after": 0])
                let stored = try #require(listed["alerts"]?.arrayValue, "\(listed)")
                #expect(stored.map { $0["kind"] } == expectedKinds, "each alert stored once\n\(stack.logs)")
                #expect(sequences(stored) == Array(1...6))
                #expect(Set(stored.compactMap { $0["event_id"]?.stringValue }).count == 6, "one alert per event")
                for watch in watches {
                    let alerts = watchedAlerts(watch)
                    #expect(sequences(alerts) == Array(1...6), "every alert once, in order: \(alerts)\n\(stack.logs)")
                    #expect(alerts.map { $0["event_id"] } == stored.map { $0["event_id"] })
                }
            } catch {
                for subscriber in raw { await subscriber.close() }
                throw error
            }
            for subscriber in raw { await subscriber.close() }
            for (index, subscriber) in raw.enumerated() {
                let published = subscriber.received.map(\.body)
                #expect(sequences(published) == Array(1...6), "notifier \(index + 1) publishes every alert once, in order: \(published)")
            }
            for notifier in notifiers {
                #expect(!notifier.log.contains("could not record event"), "a duplicate is never an error\n\(notifier.log)")
            }
            for address in metrics {
                let text = try await HTTPProbe.get("/metrics", from: address, timeout: .seconds(10)).body
                #expect(text.contains(#"tally_store_conflicts_total{service="notifier"} 0"#), "\(text)")
            }
        }
    }
}
