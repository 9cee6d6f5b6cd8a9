import Foundation
import Logging
import Metrics
import PostgresNIO
import TallyProtocol
import TallyStorage

/// A service's data in a PostgreSQL database, through postgres-nio: for deployments past one
/// machine, where workers on several hosts share one database.
///
/// Why this shape:
/// - Writes run SERIALIZABLE, so PostgreSQL gives what SQLite gives by locking the whole file:
///   every write transaction behaves as if it ran alone (storage code written for SQLite, that
///   reads then writes, stays correct). A transaction that PostgreSQL aborts for a conflict
///   (SQLSTATE 40001, or a deadlock, 40P01; or 25P02, on a connection that came back to the pool
///   inside a failed transaction) is run again from the start, as `StorageEngine.write`
///   says, after a short random pause that grows with each attempt, so colliding writers spread out.
/// - Reads run on a snapshot: REPEATABLE READ READ ONLY.
/// - The event outbox's sequence stays gap-free because each change takes its numbers with an
///   `UPDATE event_counter ... RETURNING` inside its transaction: the row is locked until the
///   commit, and a transaction that rolls back gives its numbers back (see `EventOutbox`). A
///   service's write transactions take that table's lock before their first read
///   (`EventOutbox.takeWritersTurn`), so the processes of a service queue for it instead of
///   failing to serialize on it.
/// - Migrations run under `pg_advisory_xact_lock`, READ COMMITTED so each statement sees what the
///   previous lock holder committed: many workers starting at once apply each step once.
/// - The protocol is synchronous and called from Tally's own threads: each call borrows a pooled
///   connection and waits on that thread for postgres-nio's futures (see `BlockingWait`).
public final class PostgresEngine: StorageEngine {
    public let dialect = SQLDialect.postgres
    public let configuration: PostgresConfiguration
    /// The URL as given without its password, and the schema when there is one.
    public var location: String { configuration.redacted + (configuration.schema.map { " (schema \($0))" } ?? "") }
    let pool: ConnectionPool
    private let logger = Logger(label: "tally.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
    /// `tally_store_conflicts_total{service}`: transactions PostgreSQL aborted for a conflict with
    /// another writer and that ran again. Writers that take their turn first
    /// (`SQLSession.takeWritersTurn`) should not meet any; the service is the engine's schema
    /// (`DataLocation.engine(for:)` names it after the service), else the database.
    private let conflicts: Counter

    /// Conflicting attempts after which a write gives up as `unavailable`.
    static let attempts = 30
    /// The advisory lock every Tally process takes to migrate a database ("tally" + "mig").
    static let migrationLock: Int64 = 0x7461_6c6c_796d_6967

    public init(configuration: PostgresConfiguration) {
        self.configuration = configuration
        pool = ConnectionPool(configuration: configuration)
        conflicts = Counter(
            label: "tally_store_conflicts_total", dimensions: [("service", configuration.schema ?? configuration.database)])
    }

    /// An engine for `url` (see `PostgresConfiguration`). Connects on first use, not here, so a
    /// worker can start while the database is still coming up.
    public convenience init(url: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        self.init(configuration: try PostgresConfiguration(url: url, environment: environment))
    }

    public func read<T>(_ body: (any SQLSession) throws -> T) throws -> T {
        try transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", body)
    }

    public func write<T>(_ body: (any SQLSession) throws -> T) throws -> T {
        try transaction("BEGIN ISOLATION LEVEL SERIALIZABLE", body)
    }

    public func migrate(_ migrations: [Migration]) throws {
        try Migrator.run(migrations, location: location) { body in
            try transaction("BEGIN ISOLATION LEVEL READ COMMITTED") { session in
                try session.execute("SELECT pg_advisory_xact_lock(\(Self.migrationLock))")
                if let schema = configuration.schema {
                    // A plain identifier (checked by the configuration), so safe to splice.
                    try session.execute("CREATE SCHEMA IF NOT EXISTS \(raw: schema)")
                }
                try body(session)
            }
        }
    }

    private enum Attempt<T> {
        case done(T)
        case conflict
        /// An idle connection turned out dead at BEGIN: nothing was done, take another at once.
        case stale
    }

    /// Runs `body` in a transaction opened with `begin`, again while it ends in a conflict (or
    /// could not begin on a connection the server had ended).
    private func transaction<T>(_ begin: String, _ body: (any SQLSession) throws -> T) throws -> T {
        for attempt in 1...Self.attempts {
            if attempt > 1 { Self.pause(before: attempt) }
            switch try translatingErrors({ try pool.withConnection { try once(on: $0, begin, body) } }) {
            case .done(let value): return value
            case .conflict: conflicts.increment()
            // A stale connection costs an attempt too; at most `poolSize` of them can be stale.
            case .stale: continue
            }
        }
        throw PostgresFailure.conflict.error(location: location, database: configuration.database)
    }

    private func once<T>(on lease: ConnectionPool.Lease, _ begin: String, _ body: (any SQLSession) throws -> T) throws -> Attempt<T> {
        // A server that stops answering holds the caller no longer than its request may wait.
        var patience = configuration.statementTimeout ?? .seconds(300)
        if let deadline = StorageDeadline.current { patience = min(patience, max(.zero, deadline - .now)) }
        let session = PostgresSession(
            lease: lease, database: configuration.database, location: location, deadline: patience + .seconds(5), logger: logger)
        /// Every way out that does not commit ends the transaction, so the pool never lends the
        /// connection inside one; a conflict runs it again.
        func abandon(after error: any Error) throws -> Attempt<T> {
            session.rollback()
            if case .conflict = session.doom { return .conflict }
            throw error
        }
        do {
            try session.command(begin)
        } catch {
            // The server ended it while it idled: it sent its goodbye (57P01) or just closed.
            if lease.reused, session.doom?.breaksConnection == true { return .stale }
            // Or it came back to the pool inside a failed transaction (`PostgresSession.classify`).
            return try abandon(after: error)
        }
        var statementTimeout: Duration?
        if let deadline = StorageDeadline.current {
            let left = deadline - .now
            guard left > .zero else {
                return try abandon(after: TallyError(.deadlineExceeded, "the request's deadline passed before its database work began"))
            }
            if left < configuration.statementTimeout ?? .seconds(Int64.max) { statementTimeout = left }
        }
        let value: T
        do {
            if let statementTimeout {
                // A utility statement takes no parameters; the number is ours.
                try session.execute("SET LOCAL statement_timeout = \(raw: String(max(1, statementTimeout.milliseconds)))")
            }
            value = try body(session)
        } catch {
            return try abandon(after: error)
        }
        if let doom = session.doom {
            // The body went on past a failure that dooms the transaction (GroupCommit swallows a
            // change's error inside its savepoint): nothing of it may commit.
            return try abandon(after: doom.error(location: location, database: configuration.database))
        }
        do {
            // COMMIT of a transaction that an earlier, swallowed error aborted answers ROLLBACK.
            guard try session.command("COMMIT") == "COMMIT" else {
                throw StorageFailure(location: location, detail: "the transaction was rolled back by an earlier error in it")
            }
        } catch {
            return try abandon(after: error)
        }
        return .done(value)
    }

    /// A random pause of up to 2^(attempt - 1) ms, at most 64 ms (exponential backoff with full
    /// jitter): colliding writers do not collide again in step, and a writer that keeps losing
    /// waits long enough for the others to finish. Pauses growing by 1 ms an attempt let one of
    /// three services writing one owner's accounts lose 30 times in a row on a loaded machine
    /// (`CreateTests.twoServicesOnOneFileCreateConcurrently` on PostgreSQL). Thirty attempts now
    /// span about a second at most on average; the request's deadline still bounds them.
    private static func pause(before attempt: Int) {
        let ceiling = UInt32(1000) << UInt32(min(attempt - 1, 6))
        usleep(UInt32.random(in: 0...ceiling))
    }

    /// Errors from the pool and postgres-nio, as the caller sees them; Tally's own pass through.
    private func translatingErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as TallyError {
            throw error
        } catch let error as StorageFailure {
            throw error
        } catch let error as PSQLError {
            throw PostgresFailure(error).error(location: location, database: configuration.database)
        }
    }
}
