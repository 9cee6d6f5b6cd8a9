import Foundation
import GRDB
import TallyProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The SQLite database a stateful service owns: one file per service in the data directory
/// (`accounts.sqlite`), in WAL mode, shared safely by every worker process of that service on
/// the host.
///
/// Why this shape: WAL lets readers run beside the one writer; GRDB opens write transactions
/// IMMEDIATE, so a writer that finds another process writing waits (busy timeout) instead of
/// failing; and migrations run under an exclusive file lock so two workers starting together
/// never race to create the same table.
public final class ServiceDatabase: Sendable {
    public let path: String
    public let pool: DatabasePool
    /// The service name, for error messages.
    public let name: String

    /// Opens (creating if needed) `<directory>/<name>.sqlite` and brings its schema up to date.
    public init(
        directory: String, name: String, busyTimeout: Duration = .seconds(10),
        migrations: (inout DatabaseMigrator) -> Void
    ) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        self.name = name
        let path = URL(fileURLWithPath: directory).appendingPathComponent("\(name).sqlite").path
        self.path = path
        var configuration = Configuration()
        configuration.busyMode = .timeout(Double(busyTimeout.components.seconds) + Double(busyTimeout.components.attoseconds) / 1e18)
        configuration.foreignKeysEnabled = true
        configuration.label = name
        var migrator = DatabaseMigrator()
        migrations(&migrator)
        pool = try Self.withFileLock(path + ".migrate-lock") {
            let pool = try DatabasePool(path: path, configuration: configuration)
            try migrator.migrate(pool)
            return pool
        }
    }

    /// Runs `body` in one IMMEDIATE write transaction. Database failures become API errors: a
    /// database still busy after the timeout is `unavailable` (retry), anything else `internal`;
    /// "database is locked" never reaches a client.
    public func write<T>(_ body: (Database) throws -> T) throws -> T {
        try translatingErrors { try pool.write(body) }
    }

    /// Runs `body` on a consistent snapshot, beside any writer.
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        try translatingErrors { try pool.read(body) }
    }

    private func translatingErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as TallyError {
            throw error
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
            throw TallyError(.unavailable, "the \(name) database is busy; retry shortly")
        } catch let error as DatabaseError where error.resultCode == .SQLITE_FULL {
            throw TallyError(.resourceExhausted, "the \(name) database is out of disk space")
        } catch let error as DatabaseError {
            throw StorageFailure(location: name, detail: "\(error)")
        }
    }

    /// Holds an exclusive advisory lock on `path` (created if needed) while `body` runs.
    private static func withFileLock<T>(_ path: String, _ body: () throws -> T) throws -> T {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path]) }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 && errno == EINTR {}
        defer { flock(fd, LOCK_UN) }
        return try body()
    }
}
