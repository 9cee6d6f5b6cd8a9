import Foundation
import Logging
import Synchronization
@testable import TallyPostgres
import TallyProtocol
import TallyStorage
import TallyTesting
import Testing

/// The PostgreSQL engine on a real server (a throwaway cluster, a fresh database per test):
/// values both ways, transactions, conflicts retried, many writers and migrating workers at once.
/// The store's own behaviour runs on both engines in `ServiceStoreTests`.
@Suite(.enabled(if: PostgresCluster.isInstalled, Comment(rawValue: PostgresCluster.whyUnavailable ?? "")))
struct PostgresEngineTests {
    let url: String

    init() throws {
        url = try PostgresCluster.shared().makeDatabase()
    }

    static let values = Migration("values-v1") { session in
        try session.create(TableSchema(
            "value",
            columns: [
                ColumnSchema("id", .identity), ColumnSchema("amount", .money, notNull: false),
                ColumnSchema("at", .timestamp, notNull: false), ColumnSchema("flag", .bool, notNull: false),
                ColumnSchema("bytes", .blob, notNull: false), ColumnSchema("label", .text, notNull: false),
                ColumnSchema("count", .integer, notNull: false),
            ]))
    }

    private func engine(_ query: String = "") throws -> PostgresEngine {
        let engine = try PostgresEngine(url: url + query)
        try engine.migrate([Self.values])
        return engine
    }

    /// A commit is answered once the server has flushed its log (the server's default) unless
    /// the operator chose `Durability.process`.
    @Test func aCommitIsOnTheDiskByDefaultAndOnlyWithTheServerWhenAskedFor() throws {
        #expect(try engine().read { try $0.fetchValue("SHOW synchronous_commit", as: String.self) } == "on")
        var configuration = try PostgresConfiguration(url: url)
        configuration.durability = .process
        let fast = PostgresEngine(configuration: configuration)
        #expect(try fast.read { try $0.fetchValue("SHOW synchronous_commit", as: String.self) } == "off")
    }

    /// The largest money the SQLite tests store, Int128's own limits, and their neighbours.
    @Test func moneyRoundTripsExactlyAtEveryMagnitude() throws {
        let engine = try engine()
        let amounts: [Int128] = [0, 1, -1, 9999, 10000, -10001, Int128(Int64.max) * 1000 + 7, -(Int128(Int64.max) * 1000 + 7), .max, .min]
        try engine.write { session in
            for amount in amounts { try session.execute("INSERT INTO value (amount) VALUES (\(amount))") }
        }
        #expect(try engine.read { try $0.fetchValues("SELECT amount FROM value ORDER BY id", as: Int128.self) } == amounts)
        // Numeric order is the numbers' order (SQLite's text column would sort them as text).
        #expect(try engine.read { try $0.fetchValues("SELECT amount FROM value ORDER BY amount", as: Int128.self) } == amounts.sorted())
        #expect(try engine.read { try $0.fetchValue("SELECT SUM(amount) FROM value WHERE amount BETWEEN -10001 AND 10000", as: Int128.self) } == 9998)
    }

    @Test func aNumericWithAFractionReadsAsItsText() throws {
        let engine = try engine()
        let row = try engine.read { try $0.fetchOne("SELECT 1.50::numeric AS a, 0.0001::numeric AS b, -12345.678::numeric AS c, 'NaN'::numeric AS d") }
        #expect(row?.values == [.text("1.50"), .text("0.0001"), .text("-12345.678"), .text("NaN")])
    }

    /// Milliseconds since 1970 go in as TIMESTAMPTZ, exactly, on either side of both epochs.
    @Test func timestampsAreTimestamptzToTheMillisecond() throws {
        let engine = try engine()
        let instants: [Int64] = [0, -1, 1, 946_684_800_000, 946_684_799_999, 1_700_000_000_123, -62_135_596_800_000]
        try engine.write { session in
            for instant in instants { try session.execute("INSERT INTO value (at) VALUES (\(timestamp: instant))") }
        }
        #expect(try engine.read { try $0.fetchValues("SELECT at FROM value ORDER BY id", as: SQLTimestamp.self) }.map(\.milliseconds) == instants)
        let text = try engine.read {
            try $0.fetchValue("SELECT to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS') FROM value WHERE at = \(timestamp: 1_700_000_000_123)", as: String.self)
        }
        #expect(text == "2023-11-14 22:13:20.123", "the server sees the same instant")
    }

    @Test func booleansBytesTextIntegersAndNulls() throws {
        let engine = try engine()
        let bytes = Data([0, 1, 2, 0xFF, 0])
        try engine.write { session in
            try session.execute("INSERT INTO value (flag, bytes, label, count) VALUES (\(true), \(bytes), \("Zürich ✓ 'quoted'"), \(Int64.min))")
            try session.execute("INSERT INTO value (flag, bytes, label, count) VALUES (\(false), \(Data()), \(""), \(Int64.max))")
            try session.execute("INSERT INTO value (flag, bytes, label, count) VALUES (\(nil as Bool?), \(nil as Data?), \(nil as String?), \(nil as Int64?))")
        }
        let rows = try engine.read { try $0.fetchAll("SELECT flag, bytes, label, count FROM value ORDER BY id") }
        #expect(rows.map(\.values) == [
            [.bool(true), .blob(bytes), .text("Zürich ✓ 'quoted'"), .integer(.min)],
            [.bool(false), .blob(Data()), .text(""), .integer(.max)],
            [.null, .null, .null, .null],
        ])
        #expect(try engine.read { try $0.fetchValue("SELECT COUNT(*) FROM value WHERE flag", as: Int.self) } == 1)
    }

    @Test func executeSaysHowManyRowsItChanged() throws {
        let engine = try engine()
        let changed = try engine.write { session -> Int in
            for count: Int64 in 1...5 { try session.execute("INSERT INTO value (count) VALUES (\(count))") }
            return try session.execute("UPDATE value SET label = 'big' WHERE count > \(Int64(2))")
        }
        #expect(changed == 3)
    }

    @Test func aSavepointThatThrowsRollsBackAloneAndTheTransactionGoesOn() throws {
        let engine = try engine()
        try engine.write { session in
            try session.execute("INSERT INTO value (label) VALUES ('kept')")
            _ = try? session.savepoint {
                try session.execute("INSERT INTO value (label) VALUES ('undone')")
                throw TallyError.invalidArgument("no")
            }
            // A failing statement inside a savepoint is undone with it, and the transaction goes on.
            _ = try? session.savepoint { try session.execute("INSERT INTO no_such_table VALUES (1)") }
            try session.execute("INSERT INTO value (label) VALUES ('after')")
        }
        #expect(try engine.read { try $0.fetchValues("SELECT label FROM value ORDER BY id", as: String.self) } == ["kept", "after"])
    }

    /// A group commit's changes leave their savepoints open in runs (one `RELEASE` ends a run):
    /// across several runs, with failures and nested savepoints among them, each failure still
    /// undoes only its own work, and the server's nesting never grows past one run.
    @Test func savepointsLeftOpenInRunsStillEachUndoOnlyTheirOwn() throws {
        let engine = try engine()
        let changes = PostgresSession.unreleasedLimit * 3 + 5
        try engine.write { session in
            for count in 1...changes {
                _ = try? session.savepoint {
                    try session.execute("INSERT INTO value (count, label) VALUES (\(Int64(count)), 'outer')")
                    // A nested savepoint is released (or undone) at once, as before.
                    _ = try? session.savepoint {
                        try session.execute("INSERT INTO value (count, label) VALUES (\(Int64(count)), 'inner')")
                        if count % 5 == 0 { throw TallyError.invalidArgument("inner fails") }
                    }
                    if count % 3 == 0 { throw TallyError.invalidArgument("outer fails") }
                }
            }
            // The first run was released as a whole: its first savepoint is gone.
            #expect(throws: StorageFailure.self) { try session.savepoint { try session.execute("RELEASE SAVEPOINT tally_1") } }
        }
        let rows = try engine.read { session in
            try session.fetchValues("SELECT count || ' ' || label FROM value ORDER BY id", as: String.self)
        }
        var expected: [String] = []
        for count in 1...changes where count % 3 != 0 {
            expected.append("\(count) outer")
            if count % 5 != 0 { expected.append("\(count) inner") }
        }
        #expect(rows == expected)
    }

    /// The statements a change ends with run as one on PostgreSQL: every one of them takes effect,
    /// and a failing one takes the others with it.
    /// A read sent ahead is answered with the next statement, and a check that throws stops that
    /// statement's caller; its savepoint undoes the statement. A body that sends nothing after
    /// it has it run by `flushAhead`.
    @Test func aReadSentAheadIsCheckedBeforeTheNextStatementReturns() throws {
        let engine = try engine()
        try engine.write { session in
            try session.execute("INSERT INTO value (count, label) VALUES (1, 'first')")
            func insert(_ label: String, refusing: Bool) throws {
                try session.savepoint {
                    try session.fetchAhead("SELECT count FROM value WHERE label = 'first'") { rows in
                        if refusing, let row = rows.first { throw SeenAhead(count: try row.first()) }
                    }
                    try session.execute("INSERT INTO value (count, label) VALUES (2, \(label))")
                }
            }
            var seen: Int64?
            do { try insert("refused", refusing: true) } catch let error as SeenAhead { seen = error.count }
            #expect(seen == 1)
            try insert("passed", refusing: false)
            var checked = false
            try session.savepoint {
                try session.fetchAhead("SELECT count FROM value") { rows in checked = rows.count == 2 }
                try session.flushAhead()
            }
            #expect(checked)
        }
        let labels = try engine.read { try $0.fetchValues("SELECT label FROM value ORDER BY id", as: String.self) }
        #expect(labels == ["first", "passed"])
    }

    @Test func aBatchRunsEveryStatementOrNone() throws {
        let engine = try engine()
        try engine.write { session in
            try session.executeBatch([
                "INSERT INTO value (label, count) VALUES (\("a"), \(Int64(1)))",
                "INSERT INTO value (label, bytes) VALUES (\("b"), \(Data([0, 1, 2])))",
                "INSERT INTO value (label, at) VALUES (\("c"), \(timestamp: 1_700_000_000_123))",
            ])
            try session.executeBatch(["INSERT INTO value (label) VALUES (\("d"))"])
            try session.executeBatch([])
        }
        #expect(try engine.read { try $0.fetchValues("SELECT label FROM value ORDER BY label", as: String.self) } == ["a", "b", "c", "d"])
        #expect(try engine.read { try $0.fetchValue("SELECT bytes FROM value WHERE label = 'b'", as: Data.self) } == Data([0, 1, 2]))
        #expect(throws: StorageFailure.self) {
            try engine.write { session in
                try session.executeBatch(["INSERT INTO value (label) VALUES (\("e"))", "INSERT INTO no_such_table VALUES (1)"])
            }
        }
        #expect(try engine.read { try $0.fetchValue("SELECT COUNT(*) FROM value WHERE label = 'e'", as: Int.self) } == 0)
    }

    @Test func aFailedStatementIsAStorageFailureAndLeavesNothing() throws {
        let engine = try engine()
        #expect(throws: StorageFailure.self) {
            try engine.write { session in
                try session.execute("INSERT INTO value (label) VALUES ('first')")
                try session.execute("INSERT INTO no_such_table VALUES (1)")
            }
        }
        // An error the body swallows still aborts the transaction: nothing of it commits.
        #expect(throws: StorageFailure.self) {
            try engine.write { session in
                try session.execute("INSERT INTO value (label) VALUES ('second')")
                _ = try? session.execute("INSERT INTO no_such_table VALUES (1)")
            }
        }
        #expect(try engine.read { try $0.fetchValue("SELECT COUNT(*) FROM value", as: Int.self) } == 0)
        // The connection that held the failed transactions serves again.
        _ = try engine.write { try $0.execute("INSERT INTO value (label) VALUES ('third')") }
    }

    /// A connection that came back to the pool inside a failed transaction (its next `BEGIN`,
    /// and every statement after, refused with 25P02) costs the next transaction one attempt,
    /// not its answer: rolled back, it runs again, with and without a request deadline (whose
    /// `SET LOCAL statement_timeout` also rolls back when it fails, so the pool never lends a
    /// connection inside the transaction).
    @Test func aConnectionLentInsideAFailedTransactionIsRolledBackAndTheWriteRunsAgain() throws {
        let engine = try engine("&pool_size=1")
        for (label, deadline) in [("no deadline", nil), ("a deadline", ContinuousClock.now + .seconds(20))] as [(String, ContinuousClock.Instant?)] {
            try engine.pool.withConnection { lease in
                let session = PostgresSession(lease: lease, database: "test", location: "test", deadline: .seconds(10), logger: Logger(label: "test"))
                try session.command("BEGIN")
                _ = try? session.execute("SELECT 1/0")
            }
            try StorageDeadline.$current.withValue(deadline) {
                _ = try engine.write { try $0.execute("INSERT INTO value (label) VALUES (\(label))") }
            }
        }
        #expect(try engine.read { try $0.fetchValue("SELECT COUNT(*) FROM value", as: Int.self) } == 2)
    }

    @Test func readsAreReadOnly() throws {
        let engine = try engine()
        #expect(throws: StorageFailure.self) {
            try engine.read { try $0.execute("INSERT INTO value (label) VALUES ('sneaky')") }
        }
    }

    @Test func aStatementPastTheTimeoutIsUnavailable() throws {
        let engine = try engine("&statement_timeout=0.2")
        let started = ContinuousClock.now
        #expect {
            try engine.read { try $0.execute("SELECT pg_sleep(10)") }
        } throws: { ($0 as? TallyError)?.code == .unavailable }
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(try engine.read { try $0.fetchValue("SELECT 1", as: Int.self) } == 1, "the connection serves on")
    }

    @Test func aCallerThatFindsEveryConnectionBusyIsToldUnavailable() throws {
        let engine = try engine("&pool_size=1&acquire_timeout=0.2")
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        Thread {
            _ = try? engine.write { session in
                try session.execute("INSERT INTO value (label) VALUES ('holder')")
                holding.signal()
                release.wait()
            }
        }.start()
        holding.wait()
        defer { release.signal() }
        let started = ContinuousClock.now
        #expect {
            try engine.read { try $0.fetchValue("SELECT 1", as: Int.self) }
        } throws: { ($0 as? TallyError)?.code == .unavailable }
        #expect(ContinuousClock.now - started < .seconds(3))
    }

    /// Read-then-write increments from four threads on two engines (two "hosts"): SERIALIZABLE
    /// aborts the ones that would lose an update, and the engine runs them again.
    @Test func conflictingWritersAreRetriedAndNoUpdateIsLost() throws {
        let engines = try (0..<2).map { _ in try engine() }
        _ = try engines[0].write { try $0.execute("INSERT INTO value (id, count) VALUES (1, 0)") }
        let failures = Mutex<[String]>([])
        onThreads(4) { thread in
            for _ in 0..<20 {
                do {
                    try engines[thread % 2].write { session in
                        let count = try session.fetchValue("SELECT count FROM value WHERE id = 1", as: Int64.self) ?? 0
                        try session.execute("UPDATE value SET count = \(count + 1) WHERE id = 1")
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0.prefix(3) })")
        #expect(try engines[1].read { try $0.fetchValue("SELECT count FROM value WHERE id = 1", as: Int64.self) } == 80)
    }

    /// Several threads on each of two engines ("hosts", each with its own pool and group commit)
    /// change one service at once: every change commits with its event, and the sequence is
    /// 1...n with no gap and no repeat.
    @Test func eventSequencesStayGapFreeWithManyWritersOnTwoHosts() throws {
        let ledger = Migration("ledger-v1") { session in
            try session.create(TableSchema("entry", columns: [ColumnSchema("id", .identity), ColumnSchema("amount", .money)]))
        }
        let stores = try (0..<2).map { _ in try ServiceStore(service: "ledger", engine: try PostgresEngine(url: url), migrations: [ledger]) }
        let failures = Mutex<[String]>([])
        let (threads, changes) = (6, 20)
        onThreads(threads) { thread in
            for change in 0..<changes {
                do {
                    let request = ChangeRequest(command: "ledger.post", key: "k-\(thread)-\(change)", scope: "ledger.post:ann", fingerprint: [:])
                    _ = try stores[thread % 2].change(request) { change -> Int in
                        try change.session.execute("INSERT INTO entry (amount) VALUES (\(Int128(thread)))")
                        change.record(Posted(amount: "\(thread)"))
                        return thread
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0.prefix(3) })")
        let events = try stores[0].events(after: 0, limit: 1000)
        #expect(events.map(\.sequence) == Array(1...Int64(threads * changes)))
        #expect(try stores[1].lastEventSequence() == Int64(threads * changes))
        #expect(try stores[0].read { try $0.fetchValue("SELECT COUNT(*) FROM entry", as: Int.self) } == threads * changes)
        #expect(try stores[0].read { try $0.fetchValue("SELECT COUNT(*) FROM idempotency_key", as: Int.self) } == threads * changes)
    }

    struct Posted: DomainEvent {
        let amount: String
        var type: String { "ledger.posted" }
        var subject: String? { "ann" }
    }

    /// Workers starting together, each with its own engine: every step is applied once, and
    /// none of them fails.
    @Test func workersStartingTogetherMigrateOnceWithoutRacing() throws {
        let applied = Mutex(0)
        let counting = Migration("values-count") { session in
            applied.withLock { $0 += 1 }
            try session.execute("CREATE TABLE counted (id BIGINT PRIMARY KEY); CREATE INDEX counted_id ON counted (id)")
        }
        let failures = Mutex<[String]>([])
        onThreads(6) { _ in
            do {
                try PostgresEngine(url: url).migrate([Self.values, counting])
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0.prefix(3) })")
        #expect(applied.withLock { $0 } == 1)
        #expect(try PostgresEngine(url: url).read { try Migrator.applied($0) } == ["values-count", "values-v1"])
    }

    /// Services sharing one database each keep their tables in a schema of their own: the same
    /// table and migration names never meet, and each schema is made by the first to migrate.
    @Test func servicesInSchemasOfTheirOwnShareADatabaseWithoutMeeting() throws {
        var configuration = try PostgresConfiguration(url: url)
        var engines: [PostgresEngine] = []
        for schema in ["accounts", "shopping"] {
            configuration.schema = schema
            let engine = PostgresEngine(configuration: configuration)
            try engine.migrate([Self.values])
            _ = try engine.write { try $0.execute("INSERT INTO value (label) VALUES (\(schema))") }
            engines.append(engine)
        }
        for (engine, schema) in zip(engines, ["accounts", "shopping"]) {
            #expect(try engine.read { try $0.fetchValues("SELECT label FROM value", as: String.self) } == [schema])
            #expect(try engine.read { try Migrator.applied($0) } == ["values-v1"])
            #expect(engine.location.hasSuffix("(schema \(schema))"), "\(engine.location)")
        }
        // The default schema holds none of it.
        #expect(try PostgresEngine(url: url).read { try Migrator.applied($0) }.isEmpty)
    }

    /// A request's deadline (`StorageDeadline`) bounds its transaction's statements below the
    /// configured timeout, and one that has passed begins nothing.
    @Test func aRequestsDeadlineBoundsItsStatementsAndAPassedOneBeginsNothing() throws {
        let engine = try engine()
        #expect(try engine.read { try $0.fetchValue("SHOW statement_timeout", as: String.self) } == "30s")
        let shown = try StorageDeadline.$current.withValue(.now + .seconds(2)) {
            try engine.read { try $0.fetchValue("SHOW statement_timeout", as: String.self) }
        }
        #expect(shown != "30s" && shown?.hasSuffix("ms") == true, "\(shown ?? "none")")

        let started = ContinuousClock.now
        #expect {
            try StorageDeadline.$current.withValue(.now + .milliseconds(300)) {
                try engine.read { try $0.execute("SELECT pg_sleep(5)") }
            }
        } throws: { ($0 as? TallyError)?.code == .unavailable }
        #expect(ContinuousClock.now - started < .seconds(4), "cancelled at the deadline, not after the sleep")

        #expect {
            try StorageDeadline.$current.withValue(.now - .milliseconds(1)) {
                try engine.write { try $0.execute("INSERT INTO value (label) VALUES ('late')") }
            }
        } throws: { ($0 as? TallyError)?.code == .deadlineExceeded }
        #expect(try engine.read { try $0.fetchValue("SELECT COUNT(*) FROM value", as: Int64.self) } == 0)
    }

    @Test func sharedWorkIsBoundedByItsMostPatientRequest() {
        let now = ContinuousClock.now
        #expect(StorageDeadline.latest([now, now + .seconds(1)]) == now + .seconds(1))
        #expect(StorageDeadline.latest([now, nil]) == nil)
        #expect(StorageDeadline.latest([]) == nil)
    }
}

/// What `aReadSentAheadIsCheckedBeforeTheNextStatementReturns`'s check throws.
private struct SeenAhead: Error {
    let count: Int64
}
