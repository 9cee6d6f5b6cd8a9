import ServiceLifecycle

/// Where a stateful service keeps its data: one implementation per database engine (SQLite
/// through GRDB, the default; PostgreSQL), behind one interface, so a service's storage code is
/// written once against `SQLSession`.
///
/// Engines translate their own failures into the API's: a database that stays busy or cannot
/// be reached is `unavailable` (retry), a full disk `resource_exhausted`, anything else a
/// `StorageFailure` that the worker logs and answers as `internal`.
public protocol StorageEngine: Sendable {
    var dialect: SQLDialect { get }
    /// Where the data lives, for logs and messages: `sqlite:/var/lib/tally/accounts.sqlite`.
    var location: String { get }

    /// Runs `body` on a consistent snapshot, beside any writer.
    func read<T>(_ body: (any SQLSession) throws -> T) throws -> T

    /// Runs `body` in one write transaction, committed when it returns and rolled back when it
    /// throws. Writers of one database (in any process) are serialized: an engine that detects a
    /// conflict with a concurrent writer (PostgreSQL's serialization failures) runs `body` again in
    /// a new transaction, so `body` must do nothing but database work.
    func write<T>(_ body: (any SQLSession) throws -> T) throws -> T

    /// `write`, returning once the transaction has committed, before the disk may have it, with
    /// what puts it there (`CommitSync`): the next transaction may begin meanwhile. Whatever
    /// depends on the commit (its answer, its events) waits for `sync.wait()` first. An engine
    /// whose commit is on the disk when it returns (PostgreSQL's, by default) returns `.done`.
    func writeDeferringSync<T>(_ body: (any SQLSession) throws -> T) throws -> (value: T, sync: CommitSync)

    /// Brings the schema up to date under a lock that every process on the database respects, so
    /// workers starting together never race (see `Migrator`).
    func migrate(_ migrations: [Migration]) throws

    /// What the engine runs beside the process's work for as long as it serves (SQLite's
    /// checkpointer): services for the process's group, put before the workers that use the
    /// engine so that they stop after them. None (the default) for an engine that needs none.
    var backgroundServices: [any Service] { get }
}

extension StorageEngine {
    public var backgroundServices: [any Service] { [] }

    public func writeDeferringSync<T>(_ body: (any SQLSession) throws -> T) throws -> (value: T, sync: CommitSync) {
        (try write(body), .done)
    }
}

/// A database error that is not the client's doing. The worker logs it and answers `internal`.
public struct StorageFailure: Error, CustomStringConvertible {
    public let location: String
    public let detail: String

    public init(location: String, detail: String) {
        self.location = location
        self.detail = detail
    }

    public var description: String { "\(location): \(detail)" }
}
