import Foundation
import Synchronization
import TallyClient
import TallyProtocol
import TallyTesting
import Testing

/// PostgreSQL stopped and started again, five times, under keyed writes through a whole stack
/// of processes (gateway, two shopping workers, identity, the notifier), on a cluster of the
/// test's own. Every request is answered (ok, or `unavailable` / `deadline_exceeded`) within its
/// deadline and a margin, which the client's own timeout holds it to; after the last restart
/// every client's writes succeed again within seconds with no process restarted; every worker is
/// still registered; every acknowledged write is stored exactly once; and the notifier, which
/// handled the writes' events throughout, still makes alerts.
@Suite(.enabled(if: PostgresCluster.isInstalled, Comment(rawValue: PostgresCluster.whyUnavailable ?? "")))
struct PostgresRestartTests {
    /// What one client saw.
    private struct Tally: Sendable {
        var acknowledged: [String] = []
        var refused = 0
        var unexpected: [String] = []
    }

    @Test func workersAndTheNotifierRideOutRepeatedDatabaseRestarts() async throws {
        let cluster = try await PostgresCluster.started()
        var options = TallyStack.Options(workers: ["shopping": 2, "identity": 1], database: .postgres)
        options.cluster = cluster
        try await TallyStack.with(options) { stack in
            try await stack.startNotifier()
            let ann = try stack.signedIn("ann", userID: "2", timeout: .seconds(10))
            let workers = stack.processes(named: "shopping") + stack.processes(named: "identity") + stack.processes(named: "notifier")
            var lists: [JSONValue] = []
            for client in 0..<3 {
                lists.append(try #require(try await ann.result("shopping.create_list", ["kind": "shopping", "name": .string("Load \(client)"), "currency": "EUR"])["id"]))
            }

            // Each client waits its deadline and 2 s more, once, on its own thread: a reply later
            // than that is "no reply", below. (Timed in the test's task, a reply could look later
            // than it came, while other tests held the test process's few pool threads.)
            let deadline = Duration.seconds(2)
            let load = LoadWatch(clients: lists.count)
            let tallies = try await withThrowingTaskGroup(of: Tally.self) { group in
                for (client, list) in lists.enumerated() {
                    let caller = try stack.signedIn("ann", userID: "2", timeout: deadline + .seconds(2))
                    group.addTask {
                        var tally = Tally()
                        var serial = 0
                        while !load.stopping.load(ordering: .relaxed) {
                            serial += 1
                            let key = "c\(client)-\(serial)"
                            do {
                                let reply = try await caller.client.call(
                                    "shopping.add_item", ["list_id": list, "name": .string(key)], idempotencyKey: key, token: caller.token,
                                    deadline: deadline)
                                switch reply.error?.code {
                                case nil:
                                    tally.acknowledged.append(key)
                                    load.served(client)
                                case .unavailable?, .deadlineExceeded?:
                                    tally.refused += 1
                                    try await Task.sleep(for: .milliseconds(20))
                                default: tally.unexpected.append("\(key): \(reply)")
                                }
                            } catch {
                                tally.unexpected.append("\(key): no reply: \(error)")
                            }
                        }
                        return tally
                    }
                }
                try await Self.bounce(cluster, times: 5)
                let restarted = ContinuousClock.now
                // Serving again with no help: the load runs on until every client has been served
                // since the last restart and enough writes were acknowledged to count (a wait on
                // what happened, not a guess at how long it takes on a loaded machine), and that
                // must come within seconds.
                var notServedAgain: (any Error)?
                do {
                    try await stack.waitUntil("every client is served again after the last restart", timeout: .seconds(20)) {
                        load.everyClientServed(since: restarted) && load.acknowledged.load(ordering: .relaxed) > 20
                    }
                } catch {
                    notServedAgain = error
                }
                load.stopping.store(true, ordering: .relaxed)
                var tallies: [Tally] = []
                for try await tally in group { tallies.append(tally) }
                if let notServedAgain { throw notServedAgain }
                return tallies
            }

            #expect(
                tallies.flatMap(\.unexpected) == [],
                "every request was answered, ok or unavailable, within its deadline and a margin\n\(stack.logs)")
            #expect(tallies.map(\.refused).reduce(0, +) > 0, "the restarts were felt")
            #expect(workers.allSatisfy { $0.isRunning }, "no process died or had to be restarted\n\(stack.processSummaries)")
            try await stack.waitForWorkers("shopping", count: 2, timeout: .seconds(5))
            try await stack.waitForWorkers("identity", count: 1, timeout: .seconds(5))

            var stored: [String: Int] = [:]
            for list in lists {
                let items = try await ann.result("shopping.get_list", ["list_id": list])["items"]?.arrayValue ?? []
                for item in items { stored[item["name"]?.stringValue ?? "", default: 0] += 1 }
            }
            let acknowledged = tallies.flatMap(\.acknowledged)
            #expect(acknowledged.count > 20)
            #expect(acknowledged.filter { stored[$0] != 1 } == [], "every acknowledged write is stored exactly once")

            // The notifier still turns events into alerts: milk dearer than on the first list.
            for (list, price) in [(lists[0], "1.19"), (lists[1], "1.29")] {
                let added = try await ann.result("shopping.add_item", ["list_id": list, "name": "Milk"])
                let item = try #require(added["item"]?["id"])
                try await ann.result("shopping.mark_purchased", ["list_id": list, "item_id": item, "unit_price": .string(price)])
            }
            try await stack.waitUntil("the notifier makes the milk alert", timeout: .seconds(15)) {
                let alerts = (try? await ann.call("alerts.list", ["after": 0]))?.result?["alerts"]?.arrayValue ?? []
                return alerts.contains { $0["kind"] == "price_higher" }
            }
        }
    }

    /// Stops and starts `cluster` `times` times, down for 0.5 s to 1.7 s each time.
    private static func bounce(_ cluster: PostgresCluster, times: Int) async throws {
        for bounce in 0..<times {
            try await Task.sleep(for: .milliseconds(700))
            try await cluster.stop()
            try await Task.sleep(for: .milliseconds(500 + bounce * 300))
            try await cluster.start()
        }
    }
}

/// What the test watches of its clients while they run, shared with their tasks: whether they
/// should stop sending, when each was last served, and how many writes were acknowledged in all.
private final class LoadWatch: Sendable {
    let stopping = Atomic(false)
    let acknowledged = Atomic(0)
    private let lastServed: Mutex<[ContinuousClock.Instant?]>

    init(clients: Int) {
        lastServed = Mutex(Array(repeating: nil, count: clients))
    }

    func served(_ client: Int) {
        lastServed.withLock { $0[client] = .now }
        acknowledged.add(1, ordering: .relaxed)
    }

    func everyClientServed(since instant: ContinuousClock.Instant) -> Bool {
        lastServed.withLock { $0.allSatisfy { $0.map { $0 > instant } ?? false } }
    }
}
