import Foundation
import GRDB
import ServiceLifecycle
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
///
/// Every file it makes is private to its owner (mode 0600), whatever the process's umask: the
/// databases hold password hashes and balances. Each database file is created 0600 before SQLite
/// opens it (`createPrivateDatabase`), and SQLite gives the files it makes beside one (`-wal`,
/// `-shm`, `-journal`) the database file's own mode; the lock files are created 0600 too.
public final class SQLiteEngine: StorageEngine {
    public let dialect = SQLDialect.sqlite
    public let path: String
    public let pool: DatabasePool
    public var location: String { "sqlite:\(path)" }
    /// A shared lock on `<path>.in-use` for as long as the engine lives: `restore` takes it
    /// exclusively, so it never replaces a database a worker is serving from.
    private let inUse: Int32
    /// Copies the write-ahead log into the database file off the commit path, while it runs as a
    /// service of the process's group (see `backgroundServices`).
    public let checkpoints: WALCheckpointer
    /// Under `Durability.disk`, what syncs the write-ahead log after each commit; nil under
    /// `process`.
    let logSync: LogSync?

    /// Pages the write-ahead log may hold before a checkpoint has it started again (see
    /// `WALCheckpointer`): 512 MiB at SQLite's 4 KiB pages.
    public static let defaultLogRestartPages = 131_072
    /// Bytes a write-ahead log file is trimmed to when its log starts again.
    static let logFileLimit = 512 << 20

    /// Opens (creating if needed) `<directory>/<name>.sqlite`. `durability`: whether a commit
    /// returns only once its log is synced to the disk (`Durability`). `logRestartPages`: how
    /// large the write-ahead log may grow before a checkpoint has it started again (see
    /// `WALCheckpointer`).
    public init(
        directory: String, name: String, durability: Durability = .disk, busyTimeout: Duration = .seconds(10),
        logRestartPages: Int = defaultLogRestartPages
    ) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        path = URL(fileURLWithPath: directory).appendingPathComponent("\(name).sqlite").path
        try Self.createPrivateDatabase(path)
        inUse = try Self.lockFile(path + ".in-use", exclusive: false, wait: true)!
        var configuration = Configuration()
        configuration.busyMode = .timeout(Double(busyTimeout.components.seconds) + Double(busyTimeout.components.attoseconds) / 1e18)
        configuration.foreignKeysEnabled = true
        configuration.label = name
        configuration.prepareDatabase { db in
            // A log file grown past this (one from before the checkpointer started the log
            // again) is trimmed back to it when the log next starts again.
            try db.execute(sql: "PRAGMA journal_size_limit = \(Self.logFileLimit)")
            // The writer's temporary data in memory: a group commit's savepoints keep the pages
            // they change in a statement journal, which SQLite spills to a temporary file past
            // 64 KiB: a file created, written, deleted and evicted on every batch. In memory it is
            // a few MB at most (a batch's changed pages). Readers keep files for their sorts, and
            // so does the writer while it migrates (see `migrate`).
            if !db.configuration.readonly { try db.execute(sql: Self.tempStore(inMemory: true)) }
        }
        let path = path
        do {
            pool = try Self.withFileLock(path + ".migrate-lock") { try DatabasePool(path: path, configuration: configuration) }
            // On the writer's connection, the only one that commits (GRDB's WAL mode sets it too):
            // a commit writes the log without syncing it. Under `disk` the engine syncs it after
            // the commit, outside the write lock (`LogSync`); under `process` it reaches the disk
            // at checkpoints (see `Durability`).
            try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = NORMAL") }
            checkpoints = WALCheckpointer(path: path, configuration: configuration, writer: pool, restartPages: logRestartPages)
        } catch let error as DatabaseError {
            throw StorageFailure(location: "sqlite:\(path)", detail: "cannot open: \(error)")
        }
        logSync = durability == .disk ? try LogSync(logPath: path + "-wal", location: "sqlite:\(path)") : nil
    }

    public func read<T>(_ body: (any SQLSession) throws -> T) throws -> T {
        let value = try translatingErrors { try pool.read { try body(GRDBSession($0)) } }
        // It may have seen a commit of this process that is not on the disk yet: what it read is
        // answered only once that is. (Numbered after the read, so every commit it saw is covered.)
        if let logSync { try logSync.sync(through: logSync.latest) }
        return value
    }

    public func write<T>(_ body: (any SQLSession) throws -> T) throws -> T {
        let (value, sync) = try writeDeferringSync(body)
        try sync.wait()
        return value
    }

    public func writeDeferringSync<T>(_ body: (any SQLSession) throws -> T) throws -> (value: T, sync: CommitSync) {
        var number: UInt64?
        defer { if let number { logSync?.ended(number) } }
        let value = try translatingErrors {
            try pool.write { db in
                let value = try body(GRDBSession(db))
                number = logSync?.number()
                return value
            }
        }
        // Only a commit adds to the log; a write that rolled back left nothing to copy.
        checkpoints.noteCommit()
        guard let logSync, let number else { return (value, .done) }
        return (value, CommitSync { try logSync.sync(through: number) })
    }

    /// The checkpointer: while it runs, checkpoints happen on a thread of their own, never inside
    /// a commit; while it does not, in the commit that takes the log past SQLite's 1,000 pages.
    public var backgroundServices: [any Service] { [checkpoints] }

    public func migrate(_ migrations: [Migration]) throws {
        try Self.withFileLock(path + ".migrate-lock") {
            // A migration may copy or index a whole table: its sorts may outgrow memory.
            try translatingErrors { try pool.writeWithoutTransaction { try $0.execute(sql: Self.tempStore(inMemory: false)) } }
            defer { _ = try? pool.writeWithoutTransaction { try $0.execute(sql: Self.tempStore(inMemory: true)) } }
            try Migrator.run(migrations, location: location) { body in try write(body) }
        }
    }

    private static func tempStore(inMemory: Bool) -> String {
        "PRAGMA temp_store = \(inMemory ? "MEMORY" : "FILE")"
    }

    deinit {
        close(inUse)
    }

    /// Copies the database, consistently, while it serves (SQLite's online backup), into a new
    /// file at `destination`: the copy is the database as it was when the backup began, every
    /// committed change up to then and none after. `progress` hears (pages copied, pages in all).
    public func backup(to destination: String, progress: ((Int, Int) -> Void)? = nil) throws {
        try Self.createPrivateDatabase(destination)
        try translatingErrors {
            let target = try DatabaseQueue(path: destination)
            try pool.backup(to: target, pagesPerStep: progress == nil ? -1 : 256) { step in
                progress?(step.completedPageCount, step.totalPageCount)
            }
        }
    }

    /// Replaces the database at `<directory>/<name>.sqlite` with the backup at `source`, page by
    /// page, then runs `finish` on it in one transaction before anyone else may open it. Refuses
    /// while any process has the database open (a worker serving from it): stop the service's
    /// workers first.
    public static func restore(
        directory: String, name: String, from source: String, progress: ((Int, Int) -> Void)? = nil,
        then finish: ((any SQLSession) throws -> Void)? = nil
    ) throws {
        let path = URL(fileURLWithPath: directory).appendingPathComponent("\(name).sqlite").path
        guard let lock = try lockFile(path + ".in-use", exclusive: true, wait: false) else {
            throw TallyError(
                .failedPrecondition,
                "\(path) is open in another process (a \(name) worker, or tally up): stop the processes that use it, then restore")
        }
        defer { close(lock) }
        do {
            var readOnly = Configuration()
            readOnly.readonly = true
            let backup = try DatabaseQueue(path: source, configuration: readOnly)
            try createPrivateDatabase(path)
            let target = try DatabasePool(path: path)
            try backup.backup(to: target, pagesPerStep: progress == nil ? -1 : 256) { step in
                progress?(step.completedPageCount, step.totalPageCount)
            }
            // Still under the exclusive lock: no worker sees the restored file before this.
            if let finish { try target.write { try finish(GRDBSession($0)) } }
        } catch let error as DatabaseError {
            throw StorageFailure(location: "sqlite:\(path)", detail: "restoring from \(source): \(error)")
        }
    }

    /// Whether a process (this one included) has `<directory>/<name>.sqlite` open through an
    /// engine: what `restore` refuses to replace, and `tally migrate-data` to copy.
    public static func isInUse(directory: String, name: String) -> Bool {
        let path = URL(fileURLWithPath: directory).appendingPathComponent("\(name).sqlite").path
        guard let lock = try? lockFile(path + ".in-use", exclusive: true, wait: false) else { return true }
        close(lock)
        return false
    }

    /// Checks a database file (a backup) without changing it: SQLite's integrity check, and the
    /// schema steps it records. Throws when the file is not a sound database.
    public static func inspect(file: String) throws -> [String] {
        do {
            var configuration = Configuration()
            configuration.readonly = true
            let database = try DatabaseQueue(path: file, configuration: configuration)
            return try database.read { db in
                let check = try String.fetchAll(db, sql: "PRAGMA integrity_check")
                guard check == ["ok"] else {
                    throw StorageFailure(location: "sqlite:\(file)", detail: "integrity check failed: \(check.prefix(5).joined(separator: "; "))")
                }
                return try Migrator.applied(GRDBSession(db))
            }
        } catch let error as DatabaseError {
            throw StorageFailure(location: "sqlite:\(file)", detail: "not a readable SQLite database: \(error)")
        }
    }

    /// Creates `path` as an empty database file (which SQLite reads as an empty database) with mode
    /// 0600, when it does not exist yet. SQLite would create it with mode 0644 less the umask;
    /// made here first, it is private, and so are the `-wal`, `-shm` and `-journal` files SQLite
    /// makes beside it, which take its mode (SQLite's unix VFS sets it on each when it creates it,
    /// whatever the umask). An existing file keeps its mode.
    static func createPrivateDatabase(_ path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd < 0 {
            guard errno == EEXIST else {
                throw StorageFailure(location: "sqlite:\(path)", detail: "cannot create: \(String(cString: strerror(errno)))")
            }
            return
        }
        close(fd)
    }

    /// Opens (creating) `path` and locks it: shared or exclusive, waiting or not. Returns the
    /// descriptor holding the lock, or nil when `wait` is false and the lock is held elsewhere.
    private static func lockFile(_ path: String, exclusive: Bool, wait: Bool) throws -> Int32? {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw StorageFailure(location: "sqlite:\(path)", detail: "cannot open the lock file: \(String(cString: strerror(errno)))")
        }
        let operation = (exclusive ? LOCK_EX : LOCK_SH) | (wait ? 0 : LOCK_NB)
        while flock(fd, operation) != 0 {
            let code = errno
            if code == EINTR { continue }
            close(fd)
            if code == EWOULDBLOCK { return nil }
            throw StorageFailure(location: "sqlite:\(path)", detail: "cannot lock: \(String(cString: strerror(code)))")
        }
        return fd
    }

    private func translatingErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
            throw TallyError(.unavailable, "the \(pool.configuration.label ?? "service's") database is busy; retry shortly")
        } catch let error as DatabaseError where error.resultCode == .SQLITE_FULL {
            // SQLite rolled the transaction back: nothing of it was written, and nothing committed
            // before is touched. Writes succeed again as soon as there is space; no restart needed.
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
            throw TallyError(
                .resourceExhausted,
                "the disk holding the \(pool.configuration.label ?? "service's") database (\(directory)) is full: nothing was changed; retry once space is freed there")
        } catch let error as DatabaseError {
            throw StorageFailure(location: location, detail: "\(error)")
        }
    }

    /// Holds an exclusive advisory lock on `path` (created if needed) while `body` runs.
    static func withFileLock<T>(_ path: String, _ body: () throws -> T) throws -> T {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
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
            try statement.execute(arguments: Self.arguments(values))
        }
        return db.changesCount
    }

    func fetchAll(_ sql: SQL) throws -> [SQLRow] {
        let (text, values) = sql.rendered(for: .sqlite)
        let statement = try db.cachedStatement(sql: text)
        let columns = statement.columnNames
        // A cursor's rows are read in place, not copied as `Row.fetchAll`'s are.
        let cursor = try Row.fetchCursor(statement, arguments: Self.arguments(values))
        var rows: [SQLRow] = []
        while let row = try cursor.next() {
            rows.append(SQLRow(columns: columns, values: row.databaseValues.map(SQLValue.init)))
        }
        return rows
    }

    /// The statement's arguments. Not `StatementArguments(_: some Sequence<some DatabaseValueConvertible>)`:
    /// that generic initializer is not specialized for Tally's call, and resolves a key path at
    /// run time on every statement (7 to 10 % of a writing worker's time in a profile).
    private static func arguments(_ values: [SQLValue]) -> StatementArguments {
        StatementArguments(values.map { $0.databaseValue as (any DatabaseValueConvertible)? })
    }

    /// With cached statements, not GRDB's `inSavepoint`, which prepares its `SAVEPOINT` and
    /// `RELEASE` afresh each time: 4 to 5 % of a writing worker, where a change runs a dozen
    /// statements of its own. The engine's sessions are always inside a transaction (a write's, or
    /// a read's snapshot), which is where `inSavepoint` would run these same statements.
    func savepoint<T>(_ body: () throws -> T) throws -> T {
        // One name at every depth: each RELEASE and ROLLBACK TO finds the innermost, as GRDB's do.
        try db.cachedStatement(sql: "SAVEPOINT tally").execute()
        let value: T
        do {
            value = try body()
        } catch {
            // The body's error is the one reported, as `inSavepoint` reports it.
            try? rollBackSavepoint()
            throw error
        }
        try db.cachedStatement(sql: "RELEASE SAVEPOINT tally").execute()
        return value
    }

    /// Undoes the innermost savepoint, then ends it (rolling back alone leaves it open). Never
    /// releases one it could not undo. When it throws, the transaction is already lost (SQLite
    /// aborts a whole transaction on some errors, savepoints and all) and its commit says so.
    private func rollBackSavepoint() throws {
        try db.cachedStatement(sql: "ROLLBACK TO SAVEPOINT tally").execute()
        try db.cachedStatement(sql: "RELEASE SAVEPOINT tally").execute()
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
