import Logging
import PostgresNIO
import TallyProtocol
import TallyStorage

/// `SQLSession` over one pooled connection inside a transaction.
///
/// A statement's error is translated for the caller at once (see `PostgresFailure`), and the
/// failures that doom the whole transaction, whatever the caller does with the error, are kept in
/// `doom`: a serialization failure or deadlock (the engine runs the transaction again) and a lost
/// connection. `GroupCommit` swallows each change's error inside its savepoint, so the engine must
/// not rely on the error reaching it.
final class PostgresSession: SQLSession {
    let lease: ConnectionPool.Lease
    var connection: PostgresConnection { lease.connection }
    let database: String
    let location: String
    /// How long the client waits for one statement before it gives the connection up: past the
    /// server's own `statement_timeout` (or what is left of the request's deadline, which the
    /// engine gives the server too), for a server that does not answer at all.
    let deadline: Duration
    private let logger: Logger
    private(set) var doom: PostgresFailure?
    /// Whether a statement of this session has failed (see `classify`).
    private var failedBefore = false
    /// Savepoints opened in this transaction, for their names.
    private var savepointsMade = 0
    /// Savepoints whose code is running (nested in one another).
    private var openSavepoints = 0
    /// The run of outermost savepoints that ended but are not released: its first, and how many.
    private var unreleased: (first: String?, count: Int) = (nil, 0)
    /// Commands that go out with the next statement instead of waiting for an answer of their
    /// own: the savepoints opened since the last statement, a run's release, reads sent ahead.
    private var unsent: [Unsent] = []
    /// How many savepoints a run holds before one `RELEASE` ends them all: enough that the release
    /// costs little per change, few enough that the server's stack of subtransactions stays short.
    static let unreleasedLimit = 16

    var dialect: SQLDialect { .postgres }

    init(lease: ConnectionPool.Lease, database: String, location: String, deadline: Duration, logger: Logger) {
        self.lease = lease
        self.database = database
        self.location = location
        self.deadline = deadline
        self.logger = logger
    }

    @discardableResult
    func execute(_ sql: SQL) throws -> Int {
        let (text, values) = sql.rendered(for: .postgres)
        if values.isEmpty && text.contains(";") {
            // Possibly several statements (a migration's DDL): one at a time.
            return try SQLScript.statements(text).reduce(0) { try $0 + (query($1, []).metadata.rows ?? 0) }
        }
        return try query(text, values).metadata.rows ?? 0
    }

    func fetchAll(_ sql: SQL) throws -> [SQLRow] {
        let (text, values) = sql.rendered(for: .postgres)
        return Self.rows(of: try query(text, values))
    }

    /// The read goes out with the next statement (after the savepoints opened before it), and
    /// `check` runs on its rows when their answers are in.
    func fetchAhead(_ sql: SQL, then check: @escaping ([SQLRow]) throws -> Void) throws {
        let (text, values) = sql.rendered(for: .postgres)
        unsent.append(Unsent(query: PostgresQuery(unsafeSQL: text, binds: PostgresValues.bindings(values)), check: check))
    }

    func flushAhead() throws {
        guard unsent.contains(where: { $0.check != nil }) else { return }
        _ = try sendUnsent(then: nil)
    }

    private static func rows(of result: PostgresQueryResult) -> [SQLRow] {
        result.rows.map { row in SQLRow(columns: row.map(\.columnName), values: row.map(PostgresValues.value)) }
    }

    /// Joins the statements into one (`WITH s0 AS (...), s1 AS (...) last`), a single round
    /// trip: PostgreSQL runs a data-modifying `WITH` to completion, every part on one snapshot.
    func executeBatch(_ statements: [SQL]) throws {
        guard let last = statements.last else { return }
        guard statements.count > 1 else {
            try execute(last)
            return
        }
        let parts = statements.dropLast().enumerated().map { index, statement -> SQL in
            "\(raw: "s\(index)") AS (\(statement))"
        }
        try execute("WITH \(SQL.joined(parts, separator: ", ")) \(last)")
    }

    /// A savepoint costs no wait of its own: its `SAVEPOINT` goes out with the body's first
    /// statement (a body that sends none had nothing to undo, and its savepoint is never made).
    ///
    /// And a change's savepoint is not released when it succeeds, only recorded: the group
    /// commit's changes each open one, and a `RELEASE` of its own would cost each change one more
    /// wait on the server. Releasing the first savepoint of a run releases every one opened after
    /// it, so one `RELEASE` per `unreleasedLimit` savepoints keeps the transaction's nesting
    /// shallow. Only savepoints opened outside any other are left so: releasing an outer one
    /// would end an inner one its code still has open.
    func savepoint<T>(_ body: () throws -> T) throws -> T {
        savepointsMade += 1
        let name = "tally_\(savepointsMade)"
        let outermost = openSavepoints == 0
        openSavepoints += 1
        defer { openSavepoints -= 1 }
        unsent.append(Unsent(query: PostgresQuery(unsafeSQL: "SAVEPOINT \(name)"), opens: name))
        /// Whether the body sent a statement, and so the savepoint was made; if not, it is
        /// forgotten, with what its body left unsent.
        func made() -> Bool {
            guard let index = unsent.firstIndex(where: { $0.opens == name }) else { return true }
            unsent.removeSubrange(index...)
            return false
        }
        let value: T
        do {
            value = try body()
        } catch {
            // A doomed transaction cannot roll back to a savepoint; the engine ends it. Rolled
            // back, the savepoint stays open, so it joins the run like a released one would.
            if made() && doom == nil {
                try command("ROLLBACK TO SAVEPOINT \(name)")
                if outermost { keepOpen(name) }
            }
            throw error
        }
        guard made() else { return value }
        if outermost {
            keepOpen(name)
        } else {
            try command("RELEASE SAVEPOINT \(name)")
        }
        return value
    }

    /// Adds an outermost savepoint to the run left open; when the run is long enough, its
    /// release goes out with the next statement.
    private func keepOpen(_ name: String) {
        let first = unreleased.first ?? name
        unreleased.count += 1
        unreleased.first = first
        guard unreleased.count >= Self.unreleasedLimit else { return }
        unreleased = (nil, 0)
        unsent.append(Unsent(query: PostgresQuery(unsafeSQL: "RELEASE SAVEPOINT \(first)")))
    }

    /// Runs a statement of the engine's own (`BEGIN`, `COMMIT`, `ROLLBACK TO`, a nested savepoint's
    /// `RELEASE`) and waits for it; returns its command tag. A `SAVEPOINT`, and a run's
    /// `RELEASE`, wait for the next statement instead (`unsent`).
    @discardableResult
    func command(_ text: String) throws -> String {
        try query(text, []).metadata.command
    }

    /// Ends the transaction without its changes. When that fails too, the connection is closed,
    /// so the pool never lends out a connection stuck in a transaction.
    func rollback() {
        unsent = []
        guard !lease.isDiscarded && !connection.isClosed else { return }
        guard case .success = BlockingWait.result(of: send(PostgresQuery(unsafeSQL: "ROLLBACK")), within: deadline) else {
            lease.discard()
            return
        }
    }

    private func query(_ text: String, _ values: [SQLValue]) throws -> PostgresQueryResult {
        let statement = PostgresQuery(unsafeSQL: text, binds: PostgresValues.bindings(values))
        guard !unsent.isEmpty else { return try run(send(statement)) }
        switch try sendUnsent(then: statement) {
        case .success(let result)?: return result
        case .failure(let error)?: throw classify(error).error(location: location, database: database)
        case nil: preconditionFailure("a statement sent has a result")
        }
    }

    /// Sends the unsent commands, then `statement` when there is one, on the connection's queue
    /// with one wait for them all, and runs the checks of the reads sent ahead; returns
    /// `statement`'s result. A check that throws is thrown in its place.
    private func sendUnsent(then statement: PostgresQuery?) throws -> Result<PostgresQueryResult, any Error>? {
        let sending = unsent
        unsent = []
        let results = try run(send(sending.map(\.query) + (statement.map { [$0] } ?? [])))
        var refusal: (any Error)?
        for (command, result) in zip(sending, results) {
            switch result {
            case .failure(let error):
                // Whatever the statement did, a savepoint may be missing: the transaction cannot commit.
                let failure = classify(error)
                doom = doom ?? failure
                throw failure.error(location: location, database: database)
            case .success(let answer):
                guard refusal == nil, let check = command.check else { continue }
                do { try check(Self.rows(of: answer)) } catch { refusal = error }
            }
        }
        let last = statement == nil ? nil : results.last
        if let refusal {
            // The statement's own failure still counts for the transaction.
            if case .failure(let error)? = last { _ = classify(error) }
            throw refusal
        }
        return last
    }

    /// Sends `query` (see `onOpenChannel`).
    private func send(_ query: PostgresQuery) -> EventLoopFuture<PostgresQueryResult> {
        let logger = logger
        return onOpenChannel { $0.query(query, logger: logger) }
    }

    /// Sends `queries` in order (postgres-nio runs them one after another), and hands back each
    /// one's result once the last has one.
    private func send(_ queries: [PostgresQuery]) -> EventLoopFuture<[Result<PostgresQueryResult, any Error>]> {
        let logger = logger
        return onOpenChannel { connection in
            EventLoopFuture.whenAllComplete(queries.map { connection.query($0, logger: logger) }, on: connection.eventLoop)
        }
    }

    /// Runs `send` on the connection's event loop, and only while its channel is open.
    ///
    /// Why not `connection.query` from this thread: postgres-nio hands the statement to its
    /// channel without a promise for the write, and once the channel has closed (the server
    /// restarted, or ended the connection) the channel's handlers are gone, so a statement that
    /// reaches it then is dropped and its future never completes. From another thread the write
    /// is only queued to the event loop, which may close the channel first: a transaction whose
    /// connection the server ended between two of its statements then waited out the whole
    /// `deadline` (the statement timeout plus a margin, about 35 s; five minutes with no statement
    /// timeout), holding a worker thread. On the event loop, an open channel still has its
    /// handlers, and postgres-nio fails every statement they hold when it closes.
    private func onOpenChannel<Value: Sendable>(
        _ send: @escaping @Sendable (PostgresConnection) -> EventLoopFuture<Value>
    ) -> EventLoopFuture<Value> {
        let connection = connection
        return connection.eventLoop.flatSubmit {
            guard !connection.isClosed else { return connection.eventLoop.makeFailedFuture(PostgresFailure.ClosedConnection()) }
            return send(connection)
        }
    }

    private func run<Value: Sendable>(_ future: EventLoopFuture<Value>) throws -> Value {
        guard let result = BlockingWait.result(of: future, within: deadline) else {
            doom = .connectionLost
            lease.discard()
            throw TallyError(.unavailable, "the \(database) database did not answer within \(deadline); retry shortly")
        }
        switch result {
        case .success(let value): return value
        case .failure(let error): throw classify(error).error(location: location, database: database)
        }
    }

    /// What a statement's error means for the transaction: one that dooms it is kept in `doom`,
    /// and one that breaks the connection gives the connection up.
    ///
    /// A transaction found aborted before any statement of this session failed was aborted before
    /// the session began: its connection came back to the pool inside a failed transaction (its
    /// `BEGIN` is refused too). It is a conflict: rolled back (which ends that transaction), it
    /// runs again. Found aborted after a failure of its own, it is that failure, swallowed by the body:
    /// a bug, answered `internal` as the failure would have been.
    private func classify(_ error: any Error) -> PostgresFailure {
        var failure = PostgresFailure(error)
        if case .abortedBefore = failure, !failedBefore { failure = .conflict }
        failedBefore = true
        switch failure {
        case .conflict: doom = doom ?? failure
        case _ where failure.breaksConnection:
            doom = failure
            lease.discard()
        default: break
        }
        return failure
    }
}

/// A command sent with the next statement: a `SAVEPOINT` (`opens` names the savepoint it makes),
/// a run's `RELEASE`, or a read sent ahead (`check` takes its rows).
private struct Unsent {
    let query: PostgresQuery
    var opens: String? = nil
    var check: (([SQLRow]) throws -> Void)? = nil
}
