import Foundation
@testable import TallyNotifier
import TallyProtocol
import TallyStorage
import Testing

@Suite struct StoreTests {
    @Test func anEventIsHandledOnceByItsID() throws {
        let store = try makeStore()
        guard case .handled(let alerts) = try store.handle(priceEvent(sequence: 1)) else {
            Issue.record("first time not handled")
            return
        }
        #expect(alerts.map(\.sequence) == [1])
        #expect(alerts.first?.eventID == "evt-1")
        #expect(try store.handle(priceEvent(sequence: 1)) == .duplicate)
        // Same id, even if re-sent with other content: still a duplicate.
        #expect(try store.handle(priceEvent(sequence: 1, price: "9.99")) == .duplicate)
        #expect(try store.alerts(after: 0, limit: 10).alerts.count == 1)
    }

    @Test func theWatermarkMovesOnlyOverSequencesWithoutAHole() throws {
        let store = try makeStore()
        _ = try store.handle(priceEvent(sequence: 1))
        #expect(try store.watermark(of: "shopping") == 1)
        _ = try store.handle(priceEvent(sequence: 3))
        #expect(try store.watermark(of: "shopping") == 1, "2 is missing")
        _ = try store.handle(priceEvent(sequence: 2))
        #expect(try store.watermark(of: "shopping") == 3, "the hole is filled: over 2 and 3")
        #expect(try store.knownSources() == ["shopping"])
    }

    @Test func theStatusSaysHowFarEachSourceIsHandledAndWhatIsKnown() throws {
        let store = try makeStore()
        #expect(try store.status() == NotifierStatus(sources: [], lastAlertSequence: 0))
        _ = try store.handle(priceEvent(sequence: 1))
        try store.sourceHas("shopping", upTo: 4)
        try store.sourceHas("shopping", upTo: 2)  // never back
        try store.sourceHas("accounts", upTo: 7)
        #expect(try store.status() == NotifierStatus(
            sources: [
                NotifierStatus.Source(service: "accounts", handledThrough: 0, newestKnown: 7),
                NotifierStatus.Source(service: "shopping", handledThrough: 1, newestKnown: 4),
            ],
            lastAlertSequence: 1))
        #expect(try store.status().sources.map(\.lagEvents) == [7, 3])
        // Recording what a source has does not make it handled: the catch-up still starts at the watermark.
        #expect(try store.watermark(of: "accounts") == 0)
    }

    @Test func theAlertAndTheHandledEventCommitTogether() throws {
        // A rule whose alert cannot be stored (its data does not encode) fails the whole event:
        // neither the alert nor "handled" is kept, so a later retry is not a duplicate.
        struct Broken: AlertRule {
            let eventType = "shopping.price_changed"
            func alerts(for event: CloudEvent) -> [AlertDraft] {
                [AlertDraft(kind: "ok", owner: "ann", text: "first", data: [:]),
                 AlertDraft(kind: "broken", owner: "ann", text: "second", data: .number(.nan))]
            }
        }
        let broken = try makeStore(rules: [Broken()])
        #expect(throws: (any Error).self) { try broken.handle(priceEvent(sequence: 1)) }
        #expect(try broken.watermark(of: "shopping") == 0)
        #expect(try broken.alerts(after: 0, limit: 10).alerts.isEmpty)

        #expect(try broken.lastAlertSequence() == 0, "the numbers the failed attempt took are given back")

        // The same database with working rules handles it, once.
        let working = try NotifierStore(engine: broken.engine)
        guard case .handled(let alerts) = try working.handle(priceEvent(sequence: 1)) else {
            Issue.record("not handled")
            return
        }
        #expect(alerts.map(\.sequence) == [1])
        #expect(try working.watermark(of: "shopping") == 1)
        #expect(try working.handle(priceEvent(sequence: 1)) == .duplicate)
    }

    /// Events handled together share a transaction, but one whose alert cannot be stored is
    /// undone alone: the others are handled, alerted and counted in the watermark.
    @Test func eventsHandledTogetherFailAlone() throws {
        let store = try makeStore(rules: [BrokenForBo()])
        let events = [
            priceEvent(sequence: 1), priceEvent(sequence: 2, owner: "bo"), priceEvent(sequence: 3), priceEvent(sequence: 1),
        ]
        let results = store.handle(events)
        #expect(results.count == 4)
        #expect(Self.alertSequences(results[0]) == [1])
        #expect((try? results[1].get()) == nil, "bo's alert cannot be stored")
        #expect(Self.alertSequences(results[2]) == [2])
        #expect((try? results[3].get()) == .duplicate, "the same event later in the batch")
        #expect(try Self.keptIDs(store) == ["evt-3"], "3 is past the hole where 2 failed; nothing of 2 is kept")
        #expect(try store.watermark(of: "shopping") == 1, "the hole where 2 failed stays until it is handled")
        #expect(try store.alerts(after: 0, limit: 10).alerts.map(\.eventID) == ["evt-1", "evt-3"])
    }

    static func alertSequences(_ result: Result<NotifierStore.Outcome, any Error>) -> [Int64]? {
        guard case .success(.handled(let alerts)) = result else { return nil }
        return alerts.map(\.sequence)
    }

    @Test func aRestartKeepsWhatWasHandled() throws {
        let database = try makeDatabase()
        let engine = try database.engine()
        _ = try NotifierStore(engine: engine).handle(priceEvent(sequence: 1))
        let reopened = try NotifierStore(engine: try database.engine())
        #expect(try reopened.handle(priceEvent(sequence: 1)) == .duplicate)
        #expect(try reopened.lastAlertSequence() == 1)
    }

    /// Two stores on one file are two notifiers on one database: the alert numbers they give out,
    /// in turn, make one sequence without a gap; events without alerts take no number.
    @Test func alertSequencesHaveNoGapsAcrossNotifiersSharingADatabase() throws {
        let database = try makeDatabase()
        let engine = try database.engine()
        let first = try NotifierStore(engine: engine)
        let second = try NotifierStore(engine: try database.engine())
        var numbers: [Int64] = []
        for sequence in Int64(1)...6 {
            let store = sequence % 2 == 0 ? first : second
            if sequence == 3 {
                let quiet = CloudEvent(
                    id: "evt-quiet", source: "tally/shopping", type: "shopping.list_renamed", time: "2026-11-21T10:00:00.000Z",
                    subject: "ann/1", sequence: 3, data: [:])
                #expect(try store.handle(quiet) == .handled([]))
                continue
            }
            guard case .handled(let alerts) = try store.handle(priceEvent(sequence: sequence)) else {
                Issue.record("event \(sequence) not handled")
                continue
            }
            numbers += alerts.map(\.sequence)
        }
        #expect(numbers == [1, 2, 3, 4, 5])
        #expect(try first.alerts(after: 0, limit: 10).alerts.map(\.sequence) == [1, 2, 3, 4, 5])
        #expect(try second.alerts(after: 0, limit: 10).lastSequence == 5)
        #expect(try first.watermark(of: "shopping") == 6)
    }

    /// A database of the first release (alerts numbered by SQLite's AUTOINCREMENT) goes on from
    /// the highest number ever given, even when that alert has been deleted since.
    @Test func anUpgradedDatabaseNumbersOnFromItsHighestAlert() throws {
        let engine = try makeEngine(kind: .sqlite)
        try engine.migrate(Array(NotifierSchema.migrations.prefix(1)))
        try engine.write { session in
            for index in 1...3 {
                try session.execute("""
                    INSERT INTO alert (kind, owner, text, time, source, event_id, data_json, created_at_ms)
                    VALUES ('price_higher', 'ann', 'old', '2026-11-01T00:00:00.000Z', 'tally/shopping', \("old-\(index)"), '{}', 0)
                    """)
            }
            try session.execute("DELETE FROM alert WHERE sequence = 3")
        }
        let store = try NotifierStore(engine: engine)
        #expect(try store.lastAlertSequence() == 3)
        guard case .handled(let alerts) = try store.handle(priceEvent(sequence: 1)) else {
            Issue.record("not handled")
            return
        }
        #expect(alerts.map(\.sequence) == [4])
        #expect(try store.alerts(after: 0, limit: 10).alerts.map(\.sequence) == [1, 2, 4])
    }

    /// The ids the store keeps: those of events handled past a hole, in sequence order.
    static func keptIDs(_ store: NotifierStore) throws -> [String] {
        try store.engine.read { session in
            try session.fetchValues("SELECT event_id FROM handled_event ORDER BY source, sequence", as: String.self)
        }
    }

    /// Events handled in order keep no row: their sequence at or below the watermark makes a copy
    /// a duplicate. Events past a hole are kept by id until the watermark walks over them, and
    /// then deleted; a late copy of any of them is a duplicate before and after.
    @Test func onlyEventsPastAHoleAreKeptByID() throws {
        let store = try makeStore()
        for sequence: Int64 in [1, 2, 3] { _ = try store.handle(priceEvent(sequence: sequence)) }
        #expect(try Self.keptIDs(store).isEmpty)
        _ = try store.handle(priceEvent(sequence: 5))
        _ = try store.handle(priceEvent(sequence: 6))
        #expect(try store.watermark(of: "shopping") == 3, "4 is missing")
        #expect(try Self.keptIDs(store) == ["evt-5", "evt-6"])
        #expect(try store.handle(priceEvent(sequence: 2)) == .duplicate, "at or below the watermark")
        #expect(try store.handle(priceEvent(sequence: 5)) == .duplicate, "past the hole, by its id")

        // The hole filled, the watermark walks over 5 and 6 and forgets them.
        _ = try store.handle(priceEvent(sequence: 4))
        #expect(try store.watermark(of: "shopping") == 6)
        #expect(try Self.keptIDs(store).isEmpty)
        #expect(try store.handle(priceEvent(sequence: 5)) == .duplicate, "now below the watermark")
        #expect(try store.handle(priceEvent(sequence: 7)) != .duplicate, "the next one, live")
        #expect(try store.status().sources.map(\.newestKnown) == [7])
        #expect(try store.alerts(after: 0, limit: 10).alerts.map(\.eventID) == ["evt-1", "evt-2", "evt-3", "evt-5", "evt-6", "evt-4", "evt-7"])
    }

    /// A database from before only events past a hole were kept loses the ids below the
    /// watermark on upgrade, and keeps those past a hole.
    @Test func anUpgradeForgetsTheIDsBelowTheWatermark() throws {
        let engine = try makeEngine()
        let upgrade = try #require(NotifierSchema.migrations.firstIndex { $0.id == "notifier-handled-past-holes-only" })
        try engine.migrate(Array(NotifierSchema.migrations.prefix(upgrade)))
        try engine.write { session in
            try session.execute("INSERT INTO source_progress (source, last_sequence, last_seen_sequence) VALUES ('shopping', 2, 4)")
            for sequence in [1, 2, 4] {
                try session.execute("""
                    INSERT INTO handled_event (event_id, source, sequence, type, handled_at_ms)
                    VALUES (\("evt-\(sequence)"), 'shopping', \(sequence), 'shopping.price_changed', \(timestamp: Timestamp.now()))
                    """)
            }
        }
        let store = try NotifierStore(engine: engine)
        #expect(try Self.keptIDs(store) == ["evt-4"])
        #expect(try store.handle(priceEvent(sequence: 1)) == .duplicate)
        #expect(try store.handle(priceEvent(sequence: 4)) == .duplicate)
        _ = try store.handle(priceEvent(sequence: 3))
        #expect(try store.watermark(of: "shopping") == 4)
    }
}
