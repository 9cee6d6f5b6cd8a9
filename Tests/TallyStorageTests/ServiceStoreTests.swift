import Foundation
import Synchronization
import TallyProtocol
@testable import TallyStorage
import TallyTesting
import Testing

/// The one stateful-service type: a change, its events and its stored result in one transaction,
/// on every engine (a real SQLite file, a real PostgreSQL database: see `TestEngine`).
@Suite struct ServiceStoreTests {
    /// Collects what the store hands over after commit.
    final class Collector: EventSink, @unchecked Sendable {
        private let lock = NSLock()
        private var events: [CloudEvent] = []
        func publish(_ events: [CloudEvent]) { lock.withLock { self.events += events } }
        var published: [CloudEvent] { lock.withLock { events } }
    }

    struct Posted: DomainEvent {
        let amount: String
        var type: String { "ledger.posted" }
        var subject: String? { "ann" }
    }

    static let ledger = Migration("ledger-v1") { session in
        try session.create(TableSchema("entry", columns: [ColumnSchema("id", .identity), ColumnSchema("amount", .money)]))
    }

    private func store(_ database: TestEngine.Database, sink: Collector? = nil, migrations: [Migration] = [Self.ledger]) throws -> ServiceStore {
        try ServiceStore(service: "ledger", engine: try database.engine(), migrations: migrations, sink: sink)
    }

    private func request(_ amount: String, key: String? = nil) -> ChangeRequest {
        ChangeRequest(command: "ledger.post", key: key, scope: "ledger.post:ann", fingerprint: ["amount": .string(amount)])
    }

    /// Posts `amount` (in cents) and records its event.
    @discardableResult
    private func post(_ store: ServiceStore, _ amount: Int128, key: String? = nil) throws -> JSONValue {
        let result = try store.change(request(String(amount), key: key)) { change in
            let id = try change.session.fetchValue("INSERT INTO entry (amount) VALUES (\(amount)) RETURNING id", as: Int64.self)
            change.record(Posted(amount: String(amount)))
            return ["id": JSONValue.integer(id ?? 0)] as JSONValue
        }
        return try JSONReader.parse(TallyJSON.encode(result))
    }

    /// An event the database refuses to store (see `refuseEvents`): a change can fail after its
    /// events have taken their numbers.
    struct Refused: DomainEvent {
        var type: String { "ledger.refused" }
        var subject: String? { "ann" }
    }

    /// A trigger that fails the insert of every `Refused` event, as a full disk or a broken row
    /// would, after the change's first events are in.
    private func refuseEvents(_ store: ServiceStore) throws {
        _ = try store.engine.write { session in
            if session.dialect == .sqlite {
                try session.execute(
                    "CREATE TRIGGER refuse_event BEFORE INSERT ON event WHEN NEW.type = 'ledger.refused' BEGIN SELECT RAISE(ABORT, 'refused'); END")
            } else {
                try session.execute("CREATE FUNCTION refuse_event() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$")
                try session.execute(
                    "CREATE TRIGGER refuse_event BEFORE INSERT ON event FOR EACH ROW WHEN (NEW.type = 'ledger.refused') EXECUTE FUNCTION refuse_event()")
            }
        }
    }

    /// The changes of one transaction share the counter's update (`EventNumbering`), and a change
    /// that fails after taking numbers gives them back: the first, which took the counter row
    /// itself, and a later one, which counted on from it.
    @Test(arguments: TestEngine.available) func changesOfATransactionShareTheCounterAndAFailureGivesItsNumbersBack(_ kind: TestEngine) throws {
        let database = try TestEngine.Database(kind)
        let sink = Collector()
        let store = try store(database, sink: sink)
        try refuseEvents(store)
        func change(_ amount: String, refused: Bool) -> Bool {
            let result = try? store.change(request(amount)) { change -> Int in
                change.record(Posted(amount: amount))
                if refused { change.record(Refused()) }
                return 0
            }
            return result != nil
        }
        var outcomes: [Bool] = []
        let failure = store.commitTogether {
            outcomes = [change("1", refused: true), change("2", refused: false), change("3", refused: true), change("4", refused: false)]
        }
        #expect(failure == nil)
        #expect(outcomes == [false, true, false, true])
        let events = try store.events(after: 0, limit: 10)
        #expect(events.map(\.sequence) == [1, 2])
        #expect(events.map(\.data) == [["amount": "2"], ["amount": "4"]])
        #expect(try store.lastEventSequence() == 2, "the counter stops where the events do")
        #expect(sink.published == events)
        try post(store, 500)
        #expect(try store.events(after: 0, limit: 10).map(\.sequence) == [1, 2, 3])
    }

    @Test(arguments: TestEngine.available) func eventsCommitWithTheirChangeAreNumberedWithoutGapsAndPublishedAfter(_ kind: TestEngine) throws {
        let database = try TestEngine.Database(kind)
        let sink = Collector()
        let store = try store(database, sink: sink)
        for amount: Int128 in [100, 200, 300] { try post(store, amount) }
        let stored = try store.events(after: 0, limit: 10)
        #expect(stored.map(\.sequence) == [1, 2, 3])
        #expect(stored.map(\.data) == [["amount": "100"], ["amount": "200"], ["amount": "300"]])
        #expect(stored.allSatisfy { $0.source == "tally/ledger" && $0.type == "ledger.posted" && $0.subject == "ann" })
        #expect(Set(stored.map(\.id)).count == 3, "every event has an id of its own")
        #expect(stored.allSatisfy { $0.id.range(of: "^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$", options: .regularExpression) != nil },
            "a lowercase random (version 4) UUID: \(stored.map(\.id))")
        #expect(sink.published == stored, "each event reaches the sink once, after its commit")
        #expect(try store.events(after: 2, limit: 10).map(\.sequence) == [3])
        #expect(try store.lastEventSequence() == 3)
    }

    @Test(arguments: TestEngine.available) func aFailedChangeLeavesNothingAndItsNumbersAreReused(_ kind: TestEngine) throws {
        let database = try TestEngine.Database(kind)
        let sink = Collector()
        let store = try store(database, sink: sink)
        #expect(throws: TallyError.self) {
            try store.change(request("1")) { change -> JSONValue in
                try change.session.execute("INSERT INTO entry (amount) VALUES (\(Int128(1)))")
                change.record(Posted(amount: "1"))
                throw TallyError.invalidArgument("changed my mind")
            }
        }
        #expect(try store.read { try $0.fetchValue("SELECT COUNT(*) FROM entry", as: Int.self) } == 0)
        #expect(sink.published.isEmpty)
        try post(store, 2)
        #expect(try store.events(after: 0, limit: 10).map(\.sequence) == [1], "no gap where the failed change was")
    }

    @Test(arguments: TestEngine.available) func aKeyedRetryGetsTheStoredResultAndAReusedKeyIsRefused(_ kind: TestEngine) throws {
        let database = try TestEngine.Database(kind)
        let sink = Collector()
        let store = try store(database, sink: sink)
        let first = try post(store, 500, key: "k-1")
        #expect(try post(store, 500, key: "k-1") == first)
        #expect(try store.read { try $0.fetchValue("SELECT COUNT(*) FROM entry", as: Int.self) } == 1)
        #expect(sink.published.count == 1, "a retry records no event")
        #expect(throws: TallyError(.failedPrecondition, "idempotency_key 'k-1' was already used for a different ledger.post request; use a new key for a new request", field: "idempotency_key")) {
            try post(store, 600, key: "k-1")
        }
    }

    /// A retry is answered from its stored result even when its body now sends no statement, or
    /// fails before it sends one (on PostgreSQL the key's lookup waits for the body's first
    /// statement; these bodies have none).
    @Test(arguments: TestEngine.available) func aRetryIsAnsweredFromItsStoredResultWhateverItsBodyNowDoes(_ kind: TestEngine) throws {
        let database = try TestEngine.Database(kind)
        let store = try store(database)
        let first = try post(store, 700, key: "k-2")
        let quiet = try store.change(request("700", key: "k-2")) { _ in ["id": JSONValue.integer(-1)] as JSONValue }
        #expect(try JSONReader.parse(TallyJSON.encode(quiet)) == first)
        let failing = try store.change(request("700", key: "k-2")) { _ -> JSONValue in
            throw TallyError.invalidArgument("the first run passed this check")
        }
        #expect(try JSONReader.parse(TallyJSON.encode(failing)) == first)
        // A new key with such a body: its own result, and its error.
        let fresh = try store.change(request("700", key: "k-3")) { _ in ["id": JSONValue.integer(-1)] as JSONValue }
        #expect(try JSONReader.parse(TallyJSON.encode(fresh)) == ["id": .integer(-1)])
        #expect(throws: TallyError.invalidArgument("no run passed this check")) {
            try store.change(request("700", key: "k-4")) { _ -> JSONValue in throw TallyError.invalidArgument("no run passed this check") }
        }
        #expect(try store.read { try $0.fetchValue("SELECT COUNT(*) FROM entry", as: Int.self) } == 1)
    }

    /// Keys are kept for `IdempotencyKeys.retention`; a keyed change forgets the ones past it.
    @Test(arguments: TestEngine.available) func keysPastTheirRetentionAreForgottenByTheNextKeyedChange(_ kind: TestEngine) throws {
        let database = try TestEngine.Database(kind)
        let store = try store(database)
        let now = Timestamp.now() / 1000
        let retention = IdempotencyKeys.retention.components.seconds
        try store.engine.write { session in
            for (key, age) in [("expired", retention + 60), ("kept", retention - 60)] {
                try session.execute("""
                    INSERT INTO idempotency_key (key, scope, fingerprint, result, created_at)
                    VALUES (\(key), 'ledger.post:ann', '', \(Data("{}".utf8)), \(now - age))
                    """)
            }
        }
        try post(store, 1, key: "k-new")
        #expect(try store.read { try $0.fetchValues("SELECT key FROM idempotency_key ORDER BY key", as: String.self) } == ["k-new", "kept"])
    }

    @Test(arguments: TestEngine.available) func moneyPast64BitsIsStoredExactly(_ kind: TestEngine) throws {
        let database = try TestEngine.Database(kind)
        let store = try store(database)
        let huge = Int128(Int64.max) * 1000 + 7
        try post(store, huge)
        try post(store, -huge)
        #expect(try store.read { try $0.fetchValues("SELECT amount FROM entry ORDER BY id", as: Int128.self) } == [huge, -huge])
    }

    @Test(arguments: TestEngine.available) func aDatabaseFromANewerReleaseIsRefused(_ kind: TestEngine) throws {
        let database = try TestEngine.Database(kind)
        _ = try store(database, migrations: [Self.ledger, Migration("ledger-v2") { _ in }])
        #expect {
            try store(database, migrations: [Self.ledger])
        } throws: { error in
            let error = error as? TallyError
            return error?.code == .failedPrecondition && error?.message.contains("(ledger-v2): it was written by a newer release") == true
        }
    }

    @Test(arguments: TestEngine.available) func migrationsRunOnceAcrossReopening(_ kind: TestEngine) throws {
        let database = try TestEngine.Database(kind)
        let counter = Mutex(0)
        let counting = Migration("ledger-count") { _ in counter.withLock { $0 += 1 } }
        _ = try store(database, migrations: [Self.ledger, counting])
        _ = try store(database, migrations: [Self.ledger, counting])
        #expect(counter.withLock { $0 } == 1)
    }

    /// Sixteen threads change at once while the first change holds its transaction open: the
    /// fifteen queued behind it commit together in one more transaction, each in its own
    /// savepoint, so the one that fails takes none of its neighbours with it.
    @Test(arguments: TestEngine.available) func concurrentChangesShareATransactionAndAFailureRollsBackAlone(_ kind: TestEngine) async throws {
        let database = try TestEngine.Database(kind)
        let sink = Collector()
        let store = try store(database, sink: sink)
        let release = DispatchSemaphore(value: 0)
        let firstIsInside = Mutex(false)
        let outcomes = Mutex<[Int: Bool]>([:])
        let threads = (0..<16).map { index in
            Thread {
                do {
                    _ = try store.change(self.request("\(index)", key: "k-\(index)")) { change -> Int in
                        if index == 0 {
                            firstIsInside.withLock { $0 = true }
                            release.wait()
                        }
                        try change.session.execute("INSERT INTO entry (amount) VALUES (\(Int128(index)))")
                        change.record(Posted(amount: "\(index)"))
                        if index == 7 { throw TallyError.invalidArgument("seven fails") }
                        return index
                    }
                    outcomes.withLock { $0[index] = true }
                } catch {
                    outcomes.withLock { $0[index] = false }
                }
            }
        }
        threads[0].start()
        try await waitUntil("the first change is inside its transaction") { firstIsInside.withLock { $0 } }
        for thread in threads.dropFirst() { thread.start() }
        try await waitUntil("fifteen changes wait behind the first") { store.commits.waitingCount == 15 }
        release.signal()
        try await waitUntil("every change is answered") { outcomes.withLock { $0.count } == 16 }
        #expect(outcomes.withLock { $0.filter { !$0.value }.map(\.key) } == [7])
        #expect(store.commits.transactions.load(ordering: .relaxed) == 2, "the first change, then the fifteen behind it together")
        // (Sorted here: SQLite holds money as text, so ORDER BY would sort it as text.)
        let amounts = try store.read { try $0.fetchValues("SELECT amount FROM entry", as: Int128.self) }.sorted()
        #expect(amounts == (0..<16).filter { $0 != 7 }.map { Int128($0) })
        let events = try store.events(after: 0, limit: 100)
        #expect(events.map(\.sequence) == Array(1...15), "gap-free even across the rolled-back savepoint")
        #expect(try store.lastEventSequence() == 15, "the counter stops where the events do")
        #expect(sink.published == events)
        #expect(try store.read { try $0.fetchValue("SELECT COUNT(*) FROM idempotency_key", as: Int.self) } == 15)
    }
}
