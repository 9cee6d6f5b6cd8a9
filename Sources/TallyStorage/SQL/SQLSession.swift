/// A connection inside a transaction (or, for reads, a consistent snapshot): what a service's
/// storage code runs its SQL on. One engine-neutral interface, so each service's storage is
/// written once and runs on SQLite and PostgreSQL alike.
public protocol SQLSession {
    var dialect: SQLDialect { get }

    /// Runs a statement that returns no rows; returns how many rows it changed.
    @discardableResult
    func execute(_ sql: SQL) throws -> Int

    func fetchAll(_ sql: SQL) throws -> [SQLRow]

    /// Runs statements that return no rows and read nothing the others write (each may run on
    /// the same snapshot as the rest, in any order), in as few round trips to the database as
    /// the engine can: for the rows a change ends with (its events, its stored result), which on
    /// a database server would otherwise each wait for their own answer. SQLite, in the process,
    /// runs them one by one; PostgreSQL as one statement.
    func executeBatch(_ statements: [SQL]) throws

    /// Runs `sql` and hands its rows to `check`, at the latest when the session's next statement
    /// runs, and before that statement returns; `check` may throw, and the statement throws its
    /// error instead of returning. For a read whose answer only decides whether the work after
    /// it stands (a keyed change's stored result): on a database server it goes out with the next
    /// statement, so it costs no wait of its own. SQLite, in the process, runs it at once.
    /// Call it inside a `savepoint`, which undoes the work done before the check threw.
    func fetchAhead(_ sql: SQL, then check: @escaping ([SQLRow]) throws -> Void) throws

    /// Runs what `fetchAhead` left waiting for a next statement, and its checks: for a body that
    /// sent no statement after it.
    func flushAhead() throws

    /// Runs `body` so that, if it throws, what it did is undone and the rest of the transaction
    /// stands (a SQL savepoint).
    func savepoint<T>(_ body: () throws -> T) throws -> T
}

extension SQLSession {
    public func executeBatch(_ statements: [SQL]) throws {
        for statement in statements { try execute(statement) }
    }

    public func fetchAhead(_ sql: SQL, then check: @escaping ([SQLRow]) throws -> Void) throws {
        try check(fetchAll(sql))
    }

    public func flushAhead() throws {}

    public func fetchOne(_ sql: SQL) throws -> SQLRow? {
        try fetchAll(sql).first
    }

    /// The first column of the first row, or nil when there is no row (or it is NULL).
    public func fetchValue<T: SQLDecodable>(_ sql: SQL, as type: T.Type = T.self) throws -> T? {
        guard let row = try fetchOne(sql) else { return nil }
        return try Optional<T>(sqlValue: row.values.first ?? .null)
    }

    /// The first column of every row.
    public func fetchValues<T: SQLDecodable>(_ sql: SQL, as type: T.Type = T.self) throws -> [T] {
        try fetchAll(sql).map { try $0.first() }
    }

    /// Whether the query returns a row.
    public func exists(_ sql: SQL) throws -> Bool {
        try fetchOne(sql) != nil
    }

    /// Makes the write transaction this session has just begun the only writer of `table` until
    /// it ends, before the transaction reads anything: for writers that all update one row of it
    /// (a counter, a source's progress), and so take turns anyway.
    ///
    /// Why before the first read: on PostgreSQL a REPEATABLE READ or SERIALIZABLE transaction
    /// that has read, then waits for a row another transaction holds, finds it updated by a
    /// commit after its snapshot and fails to serialize, to be run again after a pause.
    /// `LOCK TABLE` takes no snapshot, so the transaction waits its turn first and then reads
    /// what the one before it committed. It goes out with the transaction's first statement
    /// (`fetchAhead`), so it costs no wait of its own; its mode conflicts with itself, with writes
    /// of the table and with its maintenance (VACUUM), never with reads. SQLite's write
    /// transactions begin IMMEDIATE, holding the file's one write lock already.
    public func takeWritersTurn(on table: String) throws {
        guard dialect == .postgres else { return }
        try fetchAhead("LOCK TABLE \(raw: table) IN SHARE ROW EXCLUSIVE MODE") { _ in }
    }
}
