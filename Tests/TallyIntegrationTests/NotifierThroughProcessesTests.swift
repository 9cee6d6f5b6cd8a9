import CZeroMQ
import Foundation
import TallyProtocol
import TallyTesting
import Testing
import ZeroMQ

/// The notifier and `tally watch` as real processes: events from a raw PUB in the test, alerts
/// at a `tally watch --json` process, catch-up through the gateway from a raw MDP worker.
@Suite struct NotifierThroughProcessesTests {
    @Test func oneEventGivesExactlyOneAlertAndADuplicateGivesNone() async throws {
        try await TallyStack.with() { stack in
            try await stack.startNotifier()
            let watch = try stack.startWatch(["--since", "0"], token: try stack.annToken())
            try await stack.publish([priceChanged(1)])
            try await stack.waitUntil("the watch shows the alert") { watchedAlerts(watch).count >= 1 }
            let alert = watchedAlerts(watch)[0]
            #expect(alert["kind"] == "price_higher")
            #expect(alert["owner"] == "ann")
            #expect(alert["text"] == "Milk cost more than last time: 1.29 EUR (was 1.19 EUR)")
            #expect(alert["event_id"] == "evt-milk-1")
            #expect(alert["source"] == "tally/shopping")

            // The same event again, then another one: only the other one alerts.
            // A third event fences it: events are handled in order, so a duplicate would come first.
            try await stack.publish([priceChanged(1), priceChanged(2, item: "Bread"), priceChanged(3, item: "Eggs")])
            try await stack.waitUntil("the watch shows the fence") { watchedAlerts(watch).contains { $0["event_id"] == "evt-eggs-3" } }
            #expect(sequences(watchedAlerts(watch)) == [1, 2, 3], "\(stack.logs)")
            #expect(watchedAlerts(watch)[1]["event_id"] == "evt-bread-2")

            let listed = try await stack.client().call("alerts.list", ["after": 0], token: try stack.annToken())
            #expect(listed.result?["alerts"]?.arrayValue?.count == 3, "\(listed)")
            #expect(listed.result?["last_sequence"] == 3)
        }
    }

    @Test func aNotifierKilledAndRestartedNeitherDuplicatesNorLoses() async throws {
        try await TallyStack.with() { stack in
            let feed = EventFeedStub()
            let worker = try await stack.rawWorker("shopping", .reply(feed.answer))
            defer { Task { try? await worker.stop() } }
            var notifier = try await stack.startNotifier()
            let watch = try stack.startWatch(["--since", "0"], token: try stack.annToken())

            feed.add(priceChanged(1))
            try await stack.publish([priceChanged(1)])
            try await stack.waitUntil("alert 1") { watchedAlerts(watch).count >= 1 }

            await notifier.kill9()
            // Committed while the notifier is down, and its publish lost: only catch-up can bring it.
            feed.add(priceChanged(2, item: "Bread"))
            notifier = try await stack.startNotifier()
            try await stack.waitUntil("alert 2, caught up after the restart") { watchedAlerts(watch).count >= 2 }

            // Re-sent old events and a new one: one new alert.
            feed.add(priceChanged(3, item: "Eggs"), priceChanged(4, item: "Tea"))
            try await stack.publish([priceChanged(1), priceChanged(2, item: "Bread"), priceChanged(3, item: "Eggs"), priceChanged(4, item: "Tea")])
            // The last one fences the rest: events are handled in order.
            try await stack.waitUntil("alert 4") { watchedAlerts(watch).contains { $0["event_id"] == "evt-tea-4" } }
            let alerts = watchedAlerts(watch)
            #expect(sequences(alerts) == [1, 2, 3, 4], "\(stack.logs)")
            #expect(alerts.compactMap { $0["event_id"]?.stringValue } == ["evt-milk-1", "evt-bread-2", "evt-eggs-3", "evt-tea-4"])
            #expect(watch.isRunning, "the watch kept going across the restart")
        }
    }

    @Test func aLateWatchGetsTheBacklogThenLiveAlertsWithNoDuplicateAtTheSeam() async throws {
        try await TallyStack.with() { stack in
            try await stack.startNotifier()
            try await stack.publish([priceChanged(1), priceChanged(2, item: "Bread", direction: "lower")])
            try await stack.waitUntil("two alerts stored") {
                (try? await stack.client().call("alerts.list", token: try stack.annToken()))?.result?["last_sequence"] == 2
            }
            let late = try stack.startWatch(["--since", "0"], token: try stack.annToken())
            let onlyNew = try stack.startWatch([], token: try stack.annToken())
            let filtered = try stack.startWatch(["--since", "0", "--topic", "alert.price_lower"], token: try stack.annToken())
            // Someone with no alerts of their own is shown none of Ann's, and told so.
            let bos = try stack.startWatch(["--since", "0"], token: try stack.accessToken(for: "bo"))
            try await stack.waitUntil("the backlog is shown") { watchedAlerts(late).count >= 2 }
            try await stack.waitUntil("every watch knows where it starts") {
                [late, onlyNew, filtered, bos].allSatisfy { $0.log.contains("new alerts follow") }
            }
            #expect(onlyNew.log.contains("new alerts follow (the latest stored alert is #2)"), "\(onlyNew.log)")
            #expect(late.log.contains("2 stored alerts shown, #1 to #2; new alerts follow"), "\(late.log)")
            #expect(filtered.log.contains("1 stored alert shown, #2; new alerts follow"), "\(filtered.log)")
            #expect(bos.log.contains("no stored alerts to show after #0; new alerts follow"), "\(bos.log)")
            #expect(watchedAlerts(bos).isEmpty, "\(bos.log)")
            // Eggs is the live alert; tea, a lower price, fences all three watches.
            try await stack.publish([priceChanged(3, item: "Eggs"), priceChanged(4, item: "Tea", direction: "lower")])
            try await stack.waitUntil("the fence reached every watch") {
                [late, onlyNew, filtered].allSatisfy { watchedAlerts($0).contains { $0["event_id"] == "evt-tea-4" } }
            }
            #expect(sequences(watchedAlerts(late)) == [1, 2, 3, 4], "\(late.log)")
            #expect(sequences(watchedAlerts(onlyNew)) == [3, 4], "\(onlyNew.log)")
            #expect(sequences(watchedAlerts(filtered)) == [2, 4], "\(filtered.log)")

            // SIGINT ends a watch cleanly.
            late.signal(SIGINT)
            #expect(await late.waitForExit(timeout: .seconds(5)))
            #expect(late.exitStatus == 0, "\(late.log)")
        }
    }

    @Test func aWatchShowsOnlyItsPersonsAlertsAndAnAdminAsksForEveryones() async throws {
        try await TallyStack.with() { stack in
            try await stack.startNotifier()
            let anns = try stack.startWatch(["--since", "0"], token: try stack.annToken())
            let olga = try stack.accessToken(for: "olga", roles: ["admin"], lifetime: .seconds(3600))
            let everyones = try stack.startWatch(["--since", "0", "--all-owners"], token: olga)
            try await stack.publish([
                priceChanged(1, owner: "bo"), priceChanged(2, item: "Bread"), priceChanged(3, item: "Eggs", owner: "bo"),
                priceChanged(4, item: "Tea"),
            ])
            // Tea, Ann's last, fences her watch: alerts are shown in order, so Bo's eggs would be there.
            try await stack.waitUntil("both watches show tea") {
                [anns, everyones].allSatisfy { watchedAlerts($0).contains { $0["event_id"] == "evt-tea-4" } }
            }
            #expect(sequences(watchedAlerts(anns)) == [2, 4], "\(anns.log)")
            #expect(watchedAlerts(anns).allSatisfy { $0["owner"] == "ann" })
            #expect(sequences(watchedAlerts(everyones)) == [1, 2, 3, 4], "\(everyones.log)")

            // Everyone's alerts without the admin role, and no login at all: refused, said, exit 1.
            let notAdmin = try stack.startWatch(["--since", "0", "--all-owners"], token: try stack.annToken())
            let nobody = try stack.startWatch(
                ["--since", "0"], token: nil, environment: ["XDG_CONFIG_HOME": stack.directory.appendingPathComponent("config-nobody").path])
            for (watch, words) in [(notAdmin, "needs the role 'admin'"), (nobody, "log in first")] {
                #expect(await watch.waitForExit(timeout: .seconds(30)), "\(watch.log)")
                #expect(watch.exitStatus == 1, "\(watch.log)")
                #expect(watch.log.contains(words), "\(watch.log)")
                #expect(watchedAlerts(watch).isEmpty)
            }
        }
    }

    @Test func aGapInASourcesSequenceIsCaughtUpThroughTheGateway() async throws {
        try await TallyStack.with() { stack in
            // A service outside the catalog, so only the gap (not a periodic check) asks it.
            func event(_ sequence: Int64) -> JSONValue {
                ["specversion": "1.0", "id": .string("pantry-\(sequence)"), "source": "tally/pantry", "type": "pantry.item_added",
                 "time": "2026-11-21T10:00:00.000Z", "sequence": .integer(sequence), "data": ["owner": "ann"]]
            }
            let feed = EventFeedStub()
            feed.add(event(1), event(2), event(3))
            let worker = try await stack.rawWorker("pantry", .reply(feed.answer))
            defer { Task { try? await worker.stop() } }
            try await stack.startNotifier(catchUpMs: 60_000)
            let subscriber = RawSubscriber(endpoint: stack.alertsEndpoint, prefix: "event.", context: stack.context)
            try await stack.waitUntil("the subscriber hears the notifier's heartbeat") { subscriber.heardHeartbeat }

            try await stack.publish([event(1)])
            try await stack.waitUntil("event 1 forwarded") { subscriber.received.count >= 1 }
            #expect(feed.requestedAfter.isEmpty, "no hole yet, no catch-up")
            try await stack.publish([event(3)])
            try await stack.waitUntil("events 2 and 3 forwarded") { subscriber.received.count >= 3 }
            // Event 4 fences the rest: forwarded in order, a duplicate would come before it.
            feed.add(event(4))
            try await stack.publish([event(4)])
            try await stack.waitUntil("event 4 forwarded") { subscriber.received.contains { $0.body["sequence"] == 4 } }
            await subscriber.close()
            #expect(subscriber.received.map(\.topic) == Array(repeating: "event.pantry.item_added", count: 4))
            #expect(subscriber.received.compactMap { $0.body["sequence"]?.intValue } == [1, 2, 3, 4])
            #expect(feed.requestedAfter.first == 1, "caught up after the last sequence handled: \(feed.requestedAfter)")
        }
    }

    /// An event over `--max-event-bytes` costs its publisher the connection and the notifier
    /// nothing: libzmq drops the connection on reading the frame's size, before buffering it; the
    /// publisher reconnects and its next events are alerted as usual.
    @Test func anEventOverTheLimitDropsItsPublishersConnectionAndNothingElse() async throws {
        try await TallyStack.with() { stack in
            try await stack.startNotifier(extraArguments: ["--max-event-bytes", "4096"])
            let watch = try stack.startWatch(["--since", "0"], token: try stack.annToken())
            let oversized = try TallyJSON.encode(priceChanged(1, item: String(repeating: "M", count: 5000)))
            let genuine = try TallyJSON.encode(priceChanged(1))
            let (context, endpoint) = (stack.context, stack.eventsEndpoint)
            let subscriptions = try await DedicatedThread.run(name: "test-oversized-publisher") { () throws -> Int in
                // A verbose XPUB passes on every subscription, so the notifier's SUB subscribing
                // again shows a new connection: the old one was dropped.
                let socket = try ZMQSocket(context: context, type: .xpub)
                defer { socket.close() }
                try socket.setLinger(milliseconds: 2000)
                try socket.setInt(ZMQ_XPUB_VERBOSE, 1)
                try socket.connect(endpoint)
                var poller = ZMQPoller()
                poller.add(socket)
                var subscriptions = 0
                func awaitSubscription() throws {
                    guard try poller.poll(timeout: .seconds(60)) > 0, try socket.receive(dontWait: true)?.first?.first == 1 else {
                        throw StackError.timedOut(detail: "the notifier subscribes to \(endpoint): none in 60 s", processes: "", logs: "")
                    }
                    subscriptions += 1
                }
                try awaitSubscription()
                _ = try socket.send([Data("shopping.price_changed".utf8), oversized])
                try awaitSubscription()
                _ = try socket.send([Data("shopping.price_changed".utf8), genuine])
                return subscriptions
            }
            #expect(subscriptions == 2)
            try await stack.waitUntil("the watch shows the genuine event's alert") { !watchedAlerts(watch).isEmpty }
            #expect(watchedAlerts(watch).compactMap { $0["event_id"]?.stringValue } == ["evt-milk-1"], "\(stack.logs)")
            #expect(watchedAlerts(watch).first?["text"] == "Milk cost more than last time: 1.29 EUR (was 1.19 EUR)")
        }
    }
}
