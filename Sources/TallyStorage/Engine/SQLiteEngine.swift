import Foundation
import GRDB
import TallyProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A service's data in one SQLite file (`<directory>/<service>.sqlite`) through GRDB: the
/// default engine, which needs no server.
///
/// Why this shape: WAL lets readers run beside the one writer; GRDB opens write transactions
/// IMMEDIATE, so a writer that finds another process writing waits (busy timeout) instead of
/// failing; and migrations run under an exclusive file lock so two workers starting together
/// never race. Every worker process of the service on the host shares the file.
public final class SQLiteEngine: StorageEngine {
    public let dialect = SQLDialect.sqlite
    public let path: String
    public let pool: DatabasePool
    public var location: String { "sqlite:\(path)" }

    /// Opens (creating if needed) `<directory>/<name>.sqlite`.
    public init(directory: String, name: String, busyTimeout: Duration = .seconds(10)) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        path = URL(fileURLWithPath: directory).appendingPathComponent("\(name).sqlite").path
        var configuration = Configuration()
        configuration.busyMode = .timeout(Double(busyTimeout.components.seconds) + Double(busyTimeout.components.attoseconds) / 1e18)
        configuration.foreignKeysEnabled = true
        configuration.label = name
        let path = path
        do {
            pool = try Self.withFileLock(path + ".migrate-lock") { try DatabasePool(path: path, configuration: configuration) }
        } catch let error as DatabaseError {
            throw StorageFailure(location: "sqlite:\(path)", detail: "cannot open: \(error)")
        }
    }

    public func read<T>(_ body: (any SQLSession) throws -> T) throws -> T {
        try translatingErrors { try pool.read { try body(GRDBSession($0)) } }
    }

    public func write<T>(_ body: (any SQLSession) throws -> T) throws -> T {
        try translatingErrors { try pool.write { try body(GRDBSession($0)) } }
    }

    public func migrate(_ migrations: [Migration]) throws {
        try Self.withFileLock(path + ".migrate-lock") {
            try Migrator.run(migrations, location: location) { body in try write(body) }
        }
    }

    /// Copies the database, consistently, while it serves (SQLite's online backup), into a new
    /// file at `destination`.
    public func backup(to destination: String) throws {
        try translatingErrors {
            let target = try DatabaseQueue(path: destination)
            try pool.backup(to: target)
        }
    }

    private func translatingErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
            throw TallyError(.unavailable, "the \(pool.configuration.label ?? "service's") database is busy; retry shortly")
        } catch let error as DatabaseError where error.resultCode == .SQLITE_FULL {
            throw TallyError(.resourceExhausted, "the \(pool.configuration.label ?? "service's") database is out of disk space")
        } catch let error as DatabaseError {
            throw StorageFailure(location: location, detail: "\(error)")
        }
    }

    /// Holds an exclusive advisory lock on `path` (created if needed) while `body` runs.
    static func withFileLock<T>(_ path: String, _ body: () throws -> T) throws -> T {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw StorageFailure(location: "sqlite:\(path)", detail: "cannot open the lock file: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 && errno == EINTR {}
        defer { flock(fd, LOCK_UN) }
        return try body()
    }
}

/// `SQLSession` over a GRDB connection in a transaction or a read.
struct GRDBSession: SQLSession {
    let db: Database
    var dialect: SQLDialect { .sqlite }

    init(_ db: Database) { self.db = db }

    @discardableResult
    func execute(_ sql: SQL) throws -> Int {
        let (text, values) = sql.rendered(for: .sqlite)
        if values.isEmpty {
            // May hold several statements (a migration's DDL); not worth a cached statement.
            try db.execute(sql: text)
        } else {
            let statement = try db.cachedStatement(sql: text)
            try statement.execute(arguments: StatementArguments(values.map(\.databaseValue)))
        }
        return db.changesCount
    }

    func fetchAll(_ sql: SQL) throws -> [SQLRow] {
        let (text, values) = sql.rendered(for: .sqlite)
        let statement = try db.cachedStatement(sql: text)
        let columns = statement.columnNames
        return try Row.fetchAll(statement, arguments: StatementArguments(values.map(\.databaseValue))).map { row in
            SQLRow(columns: columns, values: (0..<row.count).map { SQLValue(row[$0] as DatabaseValue) })
        }
    }

    func savepoint<T>(_ body: () throws -> T) throws -> T {
        var result: Result<T, any Error>!
        try db.inSavepoint {
            result = Result(catching: body)
            if case .failure = result { return .rollback }
            return .commit
        }
        return try result.get()
    }
}

extension SQLValue {
    /// How SQLite stores each kind of value (see `SQLDialect.typeName`).
    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let value), .timestamp(let value): value.databaseValue
        case .text(let text): text.databaseValue
        case .blob(let data): data.databaseValue
        case .bool(let value): (value ? 1 : 0 as Int64).databaseValue
        case .money(let value): String(value).databaseValue
        }
    }

    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let integer): self = .integer(integer)
        case .string(let text): self = .text(text)
        case .blob(let data): self = .blob(data)
        // Tally stores no floating point; a REAL here was written by something else. Keep its
        // text so the error that follows says what it was.
        case .double(let double): self = .text(String(double))
        }
    }
}
