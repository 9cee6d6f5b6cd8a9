import Foundation
import Logging
import TallyClient
import TallyNotifier
import TallyProtocol
import Testing

/// Two notifiers on one database (two stores, each on an engine of its own, as two processes),
/// both receiving every event: each event is stored once, by one of them, and each publishes
/// every alert once, in sequence order.
@Suite struct SharedDatabaseTests {
    /// Both stores handle the same events at the same time, each batch in one transaction. On
    /// PostgreSQL (SERIALIZABLE) the loser's `INSERT ... ON CONFLICT DO NOTHING` on a row the
    /// winner has not yet committed waits, fails with 40001 once it has, and the engine runs the
    /// transaction again, which finds the event handled: a duplicate, never an error.
    @Test func concurrentNotifiersStoreEachEventOnce() throws {
        let database = try makeDatabase()
        let stores = [try NotifierStore(engine: try database.engine()), try NotifierStore(engine: try database.engine())]
        let events = (Int64(1)...60).map { priceEvent(sequence: $0) }
        let collected = Outcomes()
        let barrier = Barrier(parties: 2)
        let finished = DispatchGroup()
        for index in 0..<2 {
            finished.enter()
            Thread {
                // Small batches, in the same order on both, started together: they collide.
                for start in stride(from: 0, to: events.count, by: 3) {
                    barrier.wait()
                    let results = stores[index].handle(Array(events[start..<min(start + 3, events.count)]))
                    collected.add(results, of: index)
                }
                finished.leave()
            }.start()
        }
        finished.wait()
        let outcomes = collected.all

        var storedAlerts: [Alert] = []
        for index in 0..<2 {
            #expect(outcomes[index].count == events.count)
            for result in outcomes[index] {
                switch result {
                case .success(.handled(let alerts)): storedAlerts += alerts
                case .success(.duplicate): break
                case .success(.otherEpoch): Issue.record("notifier \(index): the events carry no epoch")
                case .failure(let error): Issue.record("notifier \(index): \(error)")
                }
            }
        }
        let duplicates = zip(outcomes[0], outcomes[1]).filter { first, second in
            if case .success(.duplicate) = first, case .success(.duplicate) = second { return true }
            return false
        }
        #expect(duplicates.isEmpty, "an event neither stored")
        #expect(storedAlerts.count == events.count, "one alert per event, stored by one notifier")
        let listed = try stores[0].alerts(after: 0, limit: 1000)
        #expect(listed.alerts.map(\.sequence) == Array(1...Int64(events.count)))
        #expect(Set(listed.alerts.map(\.eventID)).count == events.count)
        #expect(try stores[1].watermark(of: "shopping") == Int64(events.count))
    }

    /// Each notifier's subscribers get every alert once, in sequence order, whichever notifier
    /// stored it: found as a duplicate, behind a jump in the numbers, or by the heartbeat.
    @Test func eachNotifierPublishesEveryAlertOnceInOrder() throws {
        let database = try makeDatabase()
        let feed = FakeFeed()
        let (first, firstPublished) = makeProcessor(store: try NotifierStore(engine: try database.engine()), feed: feed)
        let (second, secondPublished) = makeProcessor(store: try NotifierStore(engine: try database.engine()), feed: feed)
        let events = (Int64(1)...8).map { priceEvent(sequence: $0) }
        feed.events["shopping"] = events
        // 1, 2: the first stores, the second finds duplicates. 3: the second stores, the first
        // finds a duplicate. 4: only the first hears it; the second learns at its heartbeat.
        // 5: the second stores it, behind the jump over 4. 6-8: together, each storing some.
        first.receive(Array(events[0..<2]))
        second.receive(Array(events[0..<2]))
        second.receive(events[2])
        first.receive(events[2])
        first.receive(events[3])
        #expect(second.lastAlertSequence() == 4)
        second.receive(events[4])
        first.receive(events[4])
        first.receive(events[5])
        second.receive(Array(events[5..<8]))
        first.receive(Array(events[6..<8]))
        #expect(first.lastAlertSequence() == 8)
        #expect(second.lastAlertSequence() == 8)

        for published in [firstPublished, secondPublished] {
            #expect(published.alerts.map(\.sequence) == Array(1...8))
            #expect(published.alerts.map(\.eventID) == events.map(\.id))
        }
        #expect(feed.calls.isEmpty, "no hole: what another notifier handled counts as handled")
    }

    /// Alone on its database, a notifier publishes what it stores straight away, as before, and
    /// reads nothing back for a duplicate.
    @Test func aLoneNotifierPublishesAsBefore() throws {
        let (processor, published) = makeProcessor(store: try makeStore(), feed: FakeFeed())
        processor.receive(priceEvent(sequence: 1))
        processor.receive(priceEvent(sequence: 1))
        processor.receive(priceEvent(sequence: 2))
        #expect(processor.lastAlertSequence() == 2)
        #expect(published.messages.map(\.topic) == [
            "event.shopping.price_changed", "alert.ann.price_higher", "event.shopping.price_changed", "alert.ann.price_higher",
        ])
    }
}

/// What each of two stores answered, collected from their threads.
private final class Outcomes: @unchecked Sendable {
    private let lock = NSLock()
    private var value: [[Result<NotifierStore.Outcome, any Error>]] = [[], []]
    func add(_ results: [Result<NotifierStore.Outcome, any Error>], of index: Int) { lock.withLock { value[index] += results } }
    var all: [[Result<NotifierStore.Outcome, any Error>]] { lock.withLock { value } }
}

/// Lets threads start each round together.
private final class Barrier: @unchecked Sendable {
    private let condition = NSCondition()
    private let parties: Int
    private var waiting = 0
    private var round = 0

    init(parties: Int) { self.parties = parties }

    func wait() {
        condition.lock()
        defer { condition.unlock() }
        let mine = round
        waiting += 1
        if waiting == parties {
            waiting = 0
            round += 1
            condition.broadcast()
            return
        }
        while round == mine { condition.wait() }
    }
}
