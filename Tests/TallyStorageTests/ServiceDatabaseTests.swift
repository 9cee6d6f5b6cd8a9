import Foundation
import GRDB
import TallyProtocol
import TallyStorage
import Testing

@Suite struct ServiceDatabaseTests {
    private func temporaryDirectory() throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tally-storage-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url.path
    }

    private func migrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("ledger") { db in
            try db.create(table: "entry") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("writer", .text).notNull()
            }
        }
        IdempotentWrites.registerMigration(&migrator)
    }

    @Test func opensOneWALFilePerServiceAndMigratesOnce() throws {
        let directory = try temporaryDirectory()
        let first = try ServiceDatabase(directory: directory, name: "ledger", migrations: migrations)
        #expect(first.path == directory + "/ledger.sqlite")
        #expect(try first.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") } == "wal")
        try first.write { try $0.execute(sql: "INSERT INTO entry (writer) VALUES ('a')") }
        // Opening again (another worker process would) applies nothing twice and keeps the data.
        let second = try ServiceDatabase(directory: directory, name: "ledger", migrations: migrations)
        #expect(try second.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM entry") } == 1)
    }

    @Test func workersStartingTogetherMigrateWithoutRacing() throws {
        let directory = try temporaryDirectory()
        let failures = LockedList<String>()
        DispatchQueue.concurrentPerform(iterations: 6) { _ in
            do { _ = try ServiceDatabase(directory: directory, name: "ledger", migrations: migrations) } catch {
                failures.append("\(error)")
            }
        }
        #expect(failures.items.isEmpty, "\(failures.items)")
    }

    /// Separate pools are separate SQLite connections, locking the file as separate processes do.
    @Test func concurrentWritersFromSeparateConnectionsNeverSeeLocked() throws {
        let directory = try temporaryDirectory()
        let databases = try (0..<3).map { _ in try ServiceDatabase(directory: directory, name: "ledger", migrations: migrations) }
        let failures = LockedList<String>()
        DispatchQueue.concurrentPerform(iterations: 6) { index in
            let database = databases[index % databases.count]
            for _ in 0..<100 {
                do {
                    try database.write { db in
                        try db.execute(sql: "INSERT INTO entry (writer) VALUES (?)", arguments: ["\(index)"])
                    }
                } catch {
                    failures.append("\(error)")
                }
            }
        }
        #expect(failures.items.isEmpty, "\(failures.items.prefix(3))")
        #expect(try databases[0].read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM entry") } == 600)
    }

    @Test func aDatabaseBusyPastItsTimeoutIsUnavailableNotLocked() throws {
        let directory = try temporaryDirectory()
        let holder = try ServiceDatabase(directory: directory, name: "ledger", migrations: migrations)
        let impatient = try ServiceDatabase(directory: directory, name: "ledger", busyTimeout: .milliseconds(100), migrations: migrations)
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let thread = Thread {
            try? holder.write { db in
                try db.execute(sql: "INSERT INTO entry (writer) VALUES ('holder')")
                holding.signal()
                release.wait()
            }
        }
        thread.start()
        holding.wait()
        defer { release.signal() }
        do {
            try impatient.write { try $0.execute(sql: "INSERT INTO entry (writer) VALUES ('late')") }
            Issue.record("wrote while another connection held the write lock")
        } catch let error as TallyError {
            #expect(error.code == .unavailable)
            #expect(!error.message.contains("locked"))
        }
    }
}

@Suite struct IdempotentWritesTests {
    private func database() throws -> ServiceDatabase {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tally-idem-\(UUID().uuidString.prefix(8))")
        return try ServiceDatabase(directory: url.path, name: "ledger") { migrator in
            migrator.registerMigration("ledger") { db in
                try db.create(table: "entry") { $0.autoIncrementedPrimaryKey("id") }
            }
            IdempotentWrites.registerMigration(&migrator)
        }
    }

    private struct Posted: Codable, Sendable { let id: Int64 }

    private func post(_ writes: IdempotentWrites, key: String?, amount: String) throws -> JSONValue {
        let result = try writes.perform(key: key, scope: "ledger.post:alice", request: ["amount": .string(amount)]) { db in
            try db.execute(sql: "INSERT INTO entry DEFAULT VALUES")
            return Posted(id: db.lastInsertedRowID)
        }
        return try JSONDecoder().decode(JSONValue.self, from: JSONEncoder.tally.encode(result))
    }

    @Test func aRetryWithTheSameKeyAppliesOnce() throws {
        let database = try database()
        let writes = IdempotentWrites(database: database)
        let first = try post(writes, key: "k-1", amount: "5.00")
        let retry = try post(writes, key: "k-1", amount: "5.00")
        #expect(first == retry)
        #expect(try database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM entry") } == 1)
        _ = try post(writes, key: nil, amount: "5.00")
        _ = try post(writes, key: nil, amount: "5.00")
        #expect(try database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM entry") } == 3)
    }

    @Test func aKeyReusedForAnotherRequestIsRefused() throws {
        let writes = IdempotentWrites(database: try database())
        _ = try post(writes, key: "k-1", amount: "5.00")
        do {
            _ = try post(writes, key: "k-1", amount: "6.00")
            Issue.record("a reused key ran a different request")
        } catch let error as TallyError {
            #expect(error.code == .failedPrecondition)
            #expect(error.field == "idempotency_key")
        }
    }

    @Test func aFailedChangeStoresNothing() throws {
        let database = try database()
        let writes = IdempotentWrites(database: database)
        #expect(throws: TallyError.self) {
            _ = try writes.perform(key: "k-2", scope: "s", request: [:]) { db -> Posted in
                try db.execute(sql: "INSERT INTO entry DEFAULT VALUES")
                throw TallyError.invalidArgument("no")
            }
        }
        #expect(try database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM entry") } == 0)
        #expect(try database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM idempotency_key") } == 0)
    }
}

/// A list several threads append to.
final class LockedList<Element>: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Element] = []
    func append(_ element: Element) { lock.withLock { storage.append(element) } }
    var items: [Element] { lock.withLock { storage } }
}
