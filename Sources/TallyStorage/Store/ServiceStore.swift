import Foundation
import Metrics
import Synchronization
import TallyProtocol

/// A stateful service's data: the one way Tally's services read and change state.
///
/// A change runs in one transaction that also records its events in the service's outbox and,
/// when the request carries an `idempotency_key`, stores its result under that key. So a change
/// never commits without its events or its stored result, a crash at any point leaves all three
/// or none, and a retried request gets the first result back instead of running twice. The
/// events reach the worker's publisher only after the commit.
///
/// Every service writes a change the same way: a request's change with `change(context, args,
/// owner:)` (keyed by the request's `idempotency_key`, scoped by command and owner), a request's
/// change whose fingerprint must leave a secret out with `change(ChangeRequest(context, owner:,
/// fingerprint:))`, and a change of the service's own that is never stored under a key (it
/// carries a token, or no request asked for it) with `change(unkeyed:)`.
///
/// ```swift
/// let result = try store.change(context, args, owner: owner) { change in
///     try change.session.execute("UPDATE ...")
///     change.record(AccountsEvent.accountUpdated(account))
///     return account
/// }
/// ```
public final class ServiceStore: Sendable {
    /// The service's name: `accounts`, the source of its events (`tally/accounts`).
    public let service: String
    public let engine: any StorageEngine
    public let sink: (any EventSink)?
    /// The history this database's events belong to, carried by each of them (see `EventEpoch`).
    /// Read once: it changes only by a restore, which no open database sees.
    public let epoch: EventEpoch
    let commits: GroupCommit
    /// Hears of each change's transaction (the worker's tracing); nil when nothing listens.
    let observer: (any TransactionObserver)?
    /// `tally_events_published_total{service}`: events handed to the sink after their commit.
    private let eventsPublished: Counter
    /// The second (since 1970) of this store's last keyed change that purged expired keys: keys
    /// live a day, so one purge a second does what one on every keyed change did, with a
    /// statement less in nearly every change.
    private let keysPurgedInSecond = Atomic<Int64>(.min)
    /// Work every change of this service does first, in its own transaction (roster expires the
    /// trades whose shifts have started): so no change acts on state that is out of date.
    private let beforeEachChange: (@Sendable (inout Change) throws -> Void)?

    /// Opens the store and brings its schema up to date: the outbox and idempotency tables every
    /// store has, then the service's own `migrations`. `beforeEachChange` runs at the start of
    /// every change that runs (not of a retry answered from its stored result).
    public init(
        service: String, engine: any StorageEngine, migrations: [Migration], sink: (any EventSink)? = nil,
        observer: (any TransactionObserver)? = nil, beforeEachChange: (@Sendable (inout Change) throws -> Void)? = nil
    ) throws {
        self.service = service
        self.engine = engine
        self.sink = sink
        self.observer = observer
        self.beforeEachChange = beforeEachChange
        commits = GroupCommit(metrics: GroupCommit.Instruments(service: service))
        eventsPublished = Counter(label: "tally_events_published_total", dimensions: [("service", service)])
        try engine.migrate(migrations + EventOutbox.migrations + IdempotencyKeys.migrations + EventEpoch.migrations)
        epoch = try engine.read { try EventEpoch.current($0) }
    }

    /// Runs `body` on a consistent snapshot of the data.
    public func read<T>(_ body: (any SQLSession) throws -> T) throws -> T {
        try engine.read(body)
    }

    /// Runs a change: `body`'s SQL, the events it records and (with a key) its result, in one
    /// transaction. With an `idempotency_key` seen before, returns the stored result without
    /// running `body`.
    ///
    /// Changes made at once by several threads of the process share a transaction (group commit,
    /// each in its own savepoint; see `GroupCommit`); each returns only after the commit holding it.
    /// Inside `commitTogether` on this thread, it runs in that open transaction instead, and its
    /// commit (and events) come when `commitTogether` ends.
    public func change<Result: Encodable & Sendable>(
        _ request: ChangeRequest, _ body: (inout Change) throws -> Result
    ) throws -> StoredResult {
        // Written before the transaction, which its neighbours in the group commit wait on.
        let fingerprint = request.key == nil ? "" : Self.fingerprint(request.fingerprint)
        let shared = SharedTransaction.current.flatMap { $0.store === self ? $0 : nil }
        /// The result, and the changes of the transaction that committed it (0: not yet committed).
        func commit() throws -> (value: StoredResult, changes: Int) {
            do {
                if let shared { return (try shared.run { session in try apply(request, fingerprint: fingerprint, body, session) }, 0) }
                return try commits.run(on: engine) { session in try apply(request, fingerprint: fingerprint, body, session) }
            } catch let replay as IdempotencyKeys.Replay {
                // Committed by an earlier request with the key; this one's savepoint undid its work.
                return (try StoredResult(replay.result), 0)
            }
        }
        guard let observer else { return try commit().value }
        let finished = observer.begin(request, service: service, shared: shared != nil)
        do {
            let (result, changes) = try commit()
            // A batch's shared transaction commits after its last change: the observer hears then.
            if let shared { shared.whenCommitted(finished) } else { finished(TransactionOutcome(failure: nil, changes: changes)) }
            return result
        } catch {
            finished(TransactionOutcome(failure: error, changes: 0))
            throw error
        }
    }

    /// The change a request asks for, on data of `owner` (a user id, a team), keyed by the
    /// request's `idempotency_key` (scope `<command>:<owner>`, fingerprint its args and locale):
    /// the one entry for a command's change. See `change(_:_:)`.
    public func change<Result: Encodable & Sendable>(
        _ context: RequestContext, _ args: Arguments, owner: String, _ body: (inout Change) throws -> Result
    ) throws -> StoredResult {
        try change(ChangeRequest(context, args, owner: owner), body)
    }

    /// A change of the service's own, named `command`, never stored under an idempotency key: its
    /// result (which may carry a secret, a token) comes back as `body` returned it, and a retry
    /// runs again. The change and its events still commit together.
    public func change<Result>(unkeyed command: String, _ body: (inout Change) throws -> Result) throws -> Result {
        var result: Result?
        _ = try change(ChangeRequest.unkeyed(command)) { change in
            result = try body(&change)
            return Unstored()
        }
        guard let result else { throw StorageFailure(location: service, detail: "\(command): the change returned nothing") }
        return result
    }

    /// A change's work inside its transaction: `body`, its events in the outbox and its result
    /// stored under its key; when the key was seen before, `IdempotencyKeys.Replay` with the
    /// stored result instead. Returns what to do once it has committed.
    private func apply<Result: Encodable & Sendable>(
        _ request: ChangeRequest, fingerprint: String, _ body: (inout Change) throws -> Result, _ session: any SQLSession
    ) throws -> (value: StoredResult, afterCommit: (@Sendable () -> Void)?) {
        if let key = request.key {
            // Answered with the body's first statement, which it then stops (see `Replay`).
            try IdempotencyKeys.refuseReplays(key, scope: request.scope, fingerprint: fingerprint, session)
        }
        var change = Change(session: session, now: Timestamp.now())
        let result: StoredResult
        do {
            try beforeEachChange?(&change)
            result = try StoredResult(try body(&change))
            try session.flushAhead()
        } catch {
            // A retry is answered from its stored result even when its body fails before it sends
            // a statement (a check against the clock that passed the first time).
            try session.flushAhead()
            throw error
        }
        let (events, eventRows) = try EventOutbox.append(
            change.events, service: service, epoch: epoch.id, at: change.now, requestID: request.requestID,
            traceparent: request.traceparent, session)
        var closingRows = change.closingStatements + eventRows
        if let key = request.key {
            let second = change.now / 1000
            closingRows += IdempotencyKeys.storing(
                key, scope: request.scope, fingerprint: fingerprint, result: result.json, now: change.now,
                purging: keysPurgedInSecond.exchange(second, ordering: .relaxed) != second)
        }
        // In one round trip on a database server: these rows are what a change's answer waits on last.
        try session.executeBatch(closingRows)
        guard let sink, !events.isEmpty else { return (result, nil) }
        let published = eventsPublished
        return (result, {
            sink.publish(events)
            published.increment(by: events.count)
        })
    }

    /// The result stored for `request`'s `idempotency_key`, when a change with that key has
    /// committed: for a handler that does slow work before its change (hashing a password), so a
    /// retry is answered without doing it again. Throws if the key was used for another request.
    public func storedResult(for request: ChangeRequest) throws -> StoredResult? {
        guard let key = request.key else { return nil }
        let fingerprint = Self.fingerprint(request.fingerprint)
        return try read { session in
            try IdempotencyKeys.stored(key, scope: request.scope, fingerprint: fingerprint, session).map { try StoredResult($0) }
        }
    }

    /// The service's events after `sequence`, oldest first, at most `limit`: `<service>.events`.
    public func events(after sequence: Int64, limit: Int) throws -> [CloudEvent] {
        try read { try EventOutbox.events(after: sequence, limit: limit, service: service, epoch: epoch.id, $0) }
    }

    /// The highest event sequence given out, 0 when none.
    public func lastEventSequence() throws -> Int64 {
        try read { try EventOutbox.lastSequence($0) }
    }

    /// The request in canonical form (sorted keys), so the same args always compare equal.
    static func fingerprint(_ request: JSONValue) -> String {
        String(decoding: (try? TallyJSON.encode(request)) ?? Data(), as: UTF8.self)
    }
}

/// What a change is, for its idempotency: the command, its key, whose data it changes, and the
/// request it answers (to tell a true retry from a key reused for something else).
public struct ChangeRequest: Sendable {
    public var command: String
    public var key: String?
    /// What the key is unique within: the command and whose data it changes, `accounts.create:ann`.
    public var scope: String
    public var fingerprint: JSONValue
    /// The request's `id`, carried into the events the change records (their `requestid`), so one
    /// request can be followed from the gateway to its events and alerts.
    public var requestID: String?
    /// The W3C `traceparent` of the span that made the change, carried into its events (their
    /// CloudEvents `traceparent`), so their handling joins the request's trace.
    public var traceparent: String?

    public init(
        command: String, key: String?, scope: String, fingerprint: JSONValue, requestID: String? = nil, traceparent: String? = nil
    ) {
        self.command = command
        self.key = key
        self.scope = scope
        self.fingerprint = fingerprint
        self.requestID = requestID
        self.traceparent = traceparent
    }

    /// The change a request asks for, on data of `owner` (a user id, a team): the args and the
    /// locale (which may pick a currency) make the fingerprint.
    public init(_ context: RequestContext, _ args: Arguments, owner: String) {
        self.init(
            context, owner: owner, fingerprint: ["args": .object(args.values), "locale": context.locale.map(JSONValue.string) ?? .null])
    }

    /// The change a request asks for, on data of `owner`, told from another request by
    /// `fingerprint` rather than its args: for a request with a secret (a password) that must not
    /// be stored with its key. The scope is `<command>:<owner>`, as for every request's change.
    public init(_ context: RequestContext, owner: String, fingerprint: JSONValue) {
        self.init(
            command: context.command, key: context.idempotencyKey, scope: "\(context.command):\(owner)", fingerprint: fingerprint,
            requestID: context.id, traceparent: context.traceparent)
    }

    /// A change of the service's own that no key stores (see `ServiceStore.change(unkeyed:_:)`).
    public static func unkeyed(_ command: String) -> ChangeRequest {
        ChangeRequest(command: command, key: nil, scope: command, fingerprint: .null)
    }
}

/// What an unkeyed change stores as its result: nothing, its real result is handed back as it is.
private struct Unstored: Encodable, Sendable {}

/// One change in progress, inside its transaction: the SQL session, the time of the change, and
/// the events it has recorded so far.
public struct Change {
    public let session: any SQLSession
    /// When the change happens, in milliseconds since 1970: one reading of the clock for all of it.
    public let now: Int64
    var events: [any DomainEvent] = []
    /// Statements left for the change's close (`executeAtClose`).
    var closingStatements: [SQL] = []

    init(session: any SQLSession, now: Int64) {
        self.session = session
        self.now = now
    }

    /// Records `event`: stored in the outbox in this transaction, published after it commits.
    public mutating func record(_ event: some DomainEvent) {
        events.append(event)
    }

    /// Runs `sql` when the change closes, with its events and its stored result (one round trip
    /// on a database server, see `SQLSession.executeBatch`), rather than now: for a write whose
    /// row count the change does not read and that nothing later in the change reads back, such
    /// as a row's totals written from what the change holds in memory. Its errors are the
    /// change's, as any statement's.
    public mutating func executeAtClose(_ sql: SQL) {
        closingStatements.append(sql)
    }
}

/// A change's result: fresh from the transaction, or as stored for its idempotency key.
///
/// Kept as its JSON, written once: a keyed change stores these bytes under its key and the reply
/// carries the same bytes, where it used to encode the result a second time for the reply.
public struct StoredResult: JSONSelfWriting, Sendable {
    /// The result as `TallyJSON` writes it.
    public let json: Data

    public init(_ value: some Encodable) throws {
        json = try TallyJSON.encode(value)
    }

    public func writeJSON(into out: inout [UInt8]) {
        out.append(contentsOf: json)
    }

    /// For an encoder other than `TallyJSON` (which uses `writeJSON`): the result read back.
    public func encode(to encoder: Encoder) throws {
        try JSONReader.parse(json).encode(to: encoder)
    }
}
