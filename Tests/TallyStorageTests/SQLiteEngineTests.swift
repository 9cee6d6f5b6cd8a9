import Foundation
import Synchronization
import TallyProtocol
@testable import TallyStorage
import TallyTesting
import Testing

/// The SQLite engine on real files: one WAL file per service, migrations that never race, and
/// writers from separate connections (as separate processes are) that never see "locked".
@Suite struct SQLiteEngineTests {
    private let directory = TemporaryDirectory(prefix: "tally-sqlite")

    static let ledger = Migration("ledger-v1") { session in
        try session.create(TableSchema("entry", columns: [ColumnSchema("id", .identity), ColumnSchema("writer", .text)]))
    }

    private func engine(busyTimeout: Duration = .seconds(10), logRestartPages: Int = SQLiteEngine.defaultLogRestartPages) throws -> SQLiteEngine {
        let engine = try SQLiteEngine(directory: directory.path, name: "ledger", busyTimeout: busyTimeout, logRestartPages: logRestartPages)
        try engine.migrate([Self.ledger])
        return engine
    }

    private func count(_ engine: SQLiteEngine) throws -> Int? {
        try engine.read { try $0.fetchValue("SELECT COUNT(*) FROM entry", as: Int.self) }
    }

    @Test func opensOneWALFilePerServiceAndMigratesOnce() throws {
        let first = try engine()
        #expect(first.path == directory.path + "/ledger.sqlite")
        #expect(first.location == "sqlite:" + directory.path + "/ledger.sqlite")
        #expect(try first.read { try $0.fetchValue("PRAGMA journal_mode", as: String.self) } == "wal")
        _ = try first.write { try $0.execute("INSERT INTO entry (writer) VALUES ('a')") }
        // Opening again (another worker process would) applies nothing twice and keeps the data.
        #expect(try count(try engine()) == 1)
    }

    /// A commit is answered once its log is synced, unless the operator chose
    /// `Durability.process`. The writer commits without syncing (`synchronous = NORMAL`) and the
    /// engine syncs the log after the commit, outside the write lock (`LogSync`): a write returns
    /// only after a sync that covers it; a deferred one leaves the sync to its `CommitSync`, which
    /// one sync serves for every commit made before it; a read waits for the commits it may have
    /// seen.
    @Test func aCommitIsOnTheDiskByDefaultAndOnlyInTheLogWhenAskedFor() throws {
        let durable = try engine()
        #expect(try durable.write { try $0.fetchValue("PRAGMA synchronous", as: Int.self) } == 1, "NORMAL, synced by the engine")
        let log = try #require(durable.logSync)
        _ = try durable.write { try $0.execute("INSERT INTO entry (writer) VALUES ('a')") }
        #expect(log.synced == log.latest, "a write returns once its commit is synced")

        let syncsBefore = log.syncs
        let first = try durable.writeDeferringSync { try $0.execute("INSERT INTO entry (writer) VALUES ('b')") }
        let second = try durable.writeDeferringSync { try $0.execute("INSERT INTO entry (writer) VALUES ('c')") }
        #expect(log.synced < log.latest, "committed, not yet synced")
        try second.sync.wait()
        try first.sync.wait()
        #expect(log.synced == log.latest)
        #expect(log.syncs == syncsBefore + 1, "one sync covers both commits")

        _ = try durable.writeDeferringSync { try $0.execute("INSERT INTO entry (writer) VALUES ('d')") }
        #expect(try count(durable) == 4)
        #expect(log.synced == log.latest, "a read that may have seen a commit returns once it is synced")

        let fast = try SQLiteEngine(directory: directory.path, name: "fast", durability: .process)
        #expect(try fast.write { try $0.fetchValue("PRAGMA synchronous", as: Int.self) } == 1, "NORMAL")
        #expect(fast.logSync == nil, "synced at checkpoints only")
    }

    /// The database, its log and shared memory, its lock files, a backup and a restored copy are
    /// all mode 0600 under a umask that lets anyone read new files (as most systems' default
    /// does): they hold password hashes and balances.
    @Test func everyFileTheEngineMakesIsPrivateUnderALooseUmask() throws {
        let previous = umask(0o022)
        defer { umask(previous) }
        let engine = try engine()
        _ = try engine.write { try $0.execute("INSERT INTO entry (writer) VALUES ('a')") }
        let backup = directory.path + "/backups/ledger-copy.sqlite"
        for made in ["backups", "restored"] {
            try FileManager.default.createDirectory(atPath: directory.path + "/" + made, withIntermediateDirectories: true)
        }
        try engine.backup(to: backup)
        try SQLiteEngine.restore(directory: directory.path + "/restored", name: "ledger", from: backup)
        let restored = try SQLiteEngine(directory: directory.path + "/restored", name: "ledger")
        #expect(try restored.read { try $0.fetchValue("SELECT COUNT(*) FROM entry", as: Int.self) } == 1)

        var modes: [String: String] = [:]
        let files = try #require(FileManager.default.enumerator(atPath: directory.path))
        for case let file as String in files {
            let attributes = try FileManager.default.attributesOfItem(atPath: directory.path + "/" + file)
            guard attributes[.type] as? FileAttributeType == .typeRegular else { continue }
            modes[file] = String((attributes[.posixPermissions] as? Int) ?? -1, radix: 8)
        }
        for name in ["ledger.sqlite", "ledger.sqlite-wal", "ledger.sqlite-shm", "ledger.sqlite.in-use", "backups/ledger-copy.sqlite",
            "restored/ledger.sqlite", "restored/ledger.sqlite-wal", "restored/ledger.sqlite-shm"]
        {
            #expect(modes[name] != nil, "\(name) is among \(modes.keys.sorted())")
        }
        #expect(modes.filter { $0.value != "600" }.isEmpty, "\(modes)")
        withExtendedLifetime((engine, restored)) {}
    }

    private func automaticCheckpointPages(_ engine: SQLiteEngine) throws -> Int? {
        try engine.write { try $0.fetchValue("PRAGMA wal_autocheckpoint", as: Int.self) }
    }

    private func fileSize(_ path: String) -> Int {
        (try? URL(fileURLWithPath: path).resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0
    }

    /// Runs `body` while the engine's checkpointer runs as a service (as in a worker's group),
    /// then stops it as a group does, by cancelling it, and waits for it to finish.
    private func withCheckpoints(_ engine: SQLiteEngine, _ body: () async throws -> Void) async throws {
        let checkpoints = Task { try await engine.checkpoints.run() }
        do {
            try await waitUntil("the checkpointer has taken checkpoints off the commits") { try automaticCheckpointPages(engine) == 0 }
            try await body()
        } catch {
            checkpoints.cancel()
            try? await checkpoints.value
            throw error
        }
        checkpoints.cancel()
        try await checkpoints.value
    }

    /// While the checkpointer runs as a service, commits never checkpoint (`wal_autocheckpoint`
    /// is 0 on the writer): its own thread copies the log into the database file once enough
    /// commits were made. When it stops, the writer's commits checkpoint again.
    @Test func theLogIsCopiedIntoTheDatabaseFileOffTheCommitPath() async throws {
        let engine = try engine()
        #expect(engine.backgroundServices.count == 1)
        let path = engine.path
        let before = fileSize(path)
        let row = String(repeating: "x", count: 4000)
        try await withCheckpoints(engine) {
            for _ in 0..<300 {
                _ = try engine.write { try $0.execute("INSERT INTO entry (writer) VALUES (\(row))") }
            }
            // The rows' pages are in the log until a checkpoint copies them into the file.
            try await waitUntil("the checkpoint thread has copied 300 rows of 4,000 bytes into \(path) (\(before) bytes before)") {
                fileSize(path) >= before + 300 * 4000
            }
        }
        #expect(try automaticCheckpointPages(engine) == 1000, "the writer checkpoints again once the service stopped")
    }

    /// With no checkpointer running (a short open: a backup, a test, a bare benchmark loop), the
    /// writer checkpoints as SQLite does by default, in the commit that takes the log past 1,000
    /// pages, so the log stays bounded with no thread of its own.
    @Test func withNoCheckpointerRunningCommitsCheckpointAsSQLiteDoesByDefault() throws {
        let engine = try engine()
        #expect(try automaticCheckpointPages(engine) == 1000)
        let before = fileSize(engine.path)
        let row = String(repeating: "x", count: 4000)
        // 1,500 rows of a page each: past 1,000 pages in the log, a commit copies it into the file.
        for _ in 0..<1500 {
            _ = try engine.write { try $0.execute("INSERT INTO entry (writer) VALUES (\(row))") }
        }
        #expect(fileSize(engine.path) >= before + 1000 * 4000)
        #expect(fileSize(engine.path + "-wal") < 8 << 20, "the log was started again, not left to grow")
    }

    /// Under steady writes the log is started again from the top once it is large, not left to
    /// grow: a PASSIVE checkpoint alone never finds it wholly copied while writers append, so
    /// without the RESTART that follows it the log grew by every page written (here about 200 MB).
    @Test func theLogStaysBoundedUnderSteadyWrites() async throws {
        // Restarted from 4,000 pages (16 MiB) here, not the default 512 MiB: the same code, with
        // a thirty-second of the writing.
        let engine = try engine(logRestartPages: 4_000)
        // Sixteen rows of a page each, all rewritten by every commit: the database stays small,
        // and each commit adds sixteen or more pages to the log.
        let row = String(repeating: "x", count: 3000)
        _ = try engine.write { session in
            for _ in 0..<16 { try session.execute("INSERT INTO entry (writer) VALUES (\(row))") }
        }
        let logPath = engine.path + "-wal"
        var largest = 0
        try await withCheckpoints(engine) {
            for commit in 0..<3000 {
                let text = String(repeating: String(commit % 10), count: 3000)
                _ = try engine.write { try $0.execute("UPDATE entry SET writer = \(text)") }
                if commit % 50 == 0 { largest = max(largest, fileSize(logPath)) }
            }
            largest = max(largest, fileSize(logPath))
        }
        #expect(try engine.write { try $0.fetchValue("PRAGMA journal_size_limit", as: Int.self) } == 512 << 20)
        // Without the restart the log holds every page written: 188 MiB. With it, a restart can
        // wait several turns behind this tight loop when the checkpoint thread is short of a core
        // (109 MiB once, under the whole suite on two cores), so the bound sits between the two.
        #expect(largest < 150 << 20, "the log file reached \(largest >> 20) MiB")
    }

    /// The writer keeps its temporary data (a shared transaction's statement journal) in memory,
    /// except while it migrates, when a copy or an index of a whole table may outgrow it; readers
    /// keep SQLite's default.
    @Test func theWriterKeepsTemporaryDataInMemoryExceptWhileMigrating() throws {
        let tempStore: @Sendable (any SQLSession) throws -> Int? = { try $0.fetchValue("PRAGMA temp_store", as: Int.self) }
        let duringMigration = Mutex<Int?>(nil)
        let engine = try engine()
        try engine.migrate([Self.ledger, Migration("ledger-probe") { session in duringMigration.withLock { $0 = try? tempStore(session) } }])
        #expect(duringMigration.withLock { $0 } == 1, "FILE while migrating")
        #expect(try engine.write(tempStore) == 2, "MEMORY when serving")
        #expect(try engine.read(tempStore) == 0, "the default on a reader")
    }

    @Test func workersStartingTogetherMigrateWithoutRacing() throws {
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 6) { _ in
            do { _ = try engine() } catch { failures.withLock { $0.append("\(error)") } }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
    }

    /// Separate engines are separate SQLite connections, locking the file as separate processes do.
    @Test func concurrentWritersFromSeparateConnectionsNeverSeeLocked() throws {
        let engines = try (0..<3).map { _ in try engine() }
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 6) { index in
            for _ in 0..<100 {
                do {
                    _ = try engines[index % engines.count].write { try $0.execute("INSERT INTO entry (writer) VALUES (\(String(index)))") }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0.prefix(3) })")
        #expect(try count(engines[0]) == 600)
    }

    @Test func aDatabaseBusyPastItsTimeoutIsUnavailableNotLocked() throws {
        let holder = try engine()
        let impatient = try engine(busyTimeout: .milliseconds(100))
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let thread = Thread {
            _ = try? holder.write { session in
                try session.execute("INSERT INTO entry (writer) VALUES ('holder')")
                holding.signal()
                release.wait()
            }
        }
        thread.start()
        holding.wait()
        defer { release.signal() }
        do {
            _ = try impatient.write { try $0.execute("INSERT INTO entry (writer) VALUES ('late')") }
            Issue.record("wrote while another connection held the write lock")
        } catch let error as TallyError {
            #expect(error.code == .unavailable)
            #expect(!error.message.contains("locked"))
        }
    }

    @Test func aSavepointThatThrowsRollsBackAloneAndTheTransactionGoesOn() throws {
        let engine = try engine()
        _ = try engine.write { session in
            try session.execute("INSERT INTO entry (writer) VALUES ('kept')")
            _ = try? session.savepoint {
                try session.execute("INSERT INTO entry (writer) VALUES ('undone')")
                throw TallyError.invalidArgument("no")
            }
        }
        #expect(try engine.read { try $0.fetchValues("SELECT writer FROM entry", as: String.self) } == ["kept"])
    }

    /// Savepoints run on cached statements of one name: each RELEASE or ROLLBACK TO must reach the
    /// innermost, and a rolled-back one must be ended too, or the next change would run inside it.
    @Test func nestedSavepointsEachUndoOnlyTheirOwnAndNoneIsLeftOpen() throws {
        let engine = try engine()
        _ = try engine.write { session in
            try session.savepoint {
                try session.execute("INSERT INTO entry (writer) VALUES ('outer')")
                _ = try? session.savepoint {
                    try session.execute("INSERT INTO entry (writer) VALUES ('inner, undone')")
                    throw TallyError.invalidArgument("no")
                }
                _ = try session.savepoint { try session.execute("INSERT INTO entry (writer) VALUES ('inner, kept')") }
            }
            _ = try? session.savepoint {
                try session.execute("INSERT INTO entry (writer) VALUES ('second, undone')")
                throw TallyError.invalidArgument("no")
            }
            #expect(throws: (any Error).self, "a savepoint was left open") { try session.execute("RELEASE SAVEPOINT tally") }
        }
        let writers = try engine.read { try $0.fetchValues("SELECT writer FROM entry ORDER BY rowid", as: String.self) }
        #expect(writers == ["outer", "inner, kept"])
    }

    @Test func aConsistentCopyIsTakenWhileItServes() throws {
        let engine = try engine()
        _ = try engine.write { try $0.execute("INSERT INTO entry (writer) VALUES ('before')") }
        let copy = directory.path + "/copy/ledger.sqlite"
        try FileManager.default.createDirectory(atPath: directory.path + "/copy", withIntermediateDirectories: true)
        try engine.backup(to: copy)
        let restored = try SQLiteEngine(directory: directory.path + "/copy", name: "ledger")
        #expect(try count(restored) == 1)
    }
}
