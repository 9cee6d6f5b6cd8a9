import TallyProtocol
import TallyStorage

/// The roster service's data as its commands use it.
public struct RosterStore: Sendable {
    public let store: ServiceStore

    /// Opens the roster data on `engine` and brings its schema up to date.
    public init(engine: any StorageEngine, eventSink: (any EventSink)? = nil, transactionObserver: (any TransactionObserver)? = nil) throws {
        store = try ServiceStore(service: "roster", engine: engine, migrations: RosterSchema.migrations, sink: eventSink,
            observer: transactionObserver)
    }

    /// Runs a change on behalf of `caller` (see `ServiceStore.change`; idempotency keys are the
    /// caller's own). Open trades whose shifts have started expire first: in a transaction of
    /// their own, so the expiry is recorded even when the change is refused, and again inside the
    /// change, so it never acts on a trade whose shift started a moment ago.
    func change<Result: Encodable & Sendable>(
        _ args: Arguments, _ context: RequestContext, caller: Caller, _ body: (inout Change) throws -> Result
    ) throws -> StoredResult {
        try expireStarted()
        return try store.change(ChangeRequest(context, args, owner: caller.userID)) { change in
            try TradeTransitions.expireStarted(&change)
            return try body(&change)
        }
    }

    /// Expires the open trades whose first shift has started, with their events; a read when
    /// there are none.
    func expireStarted() throws {
        let now = Timestamp.now()
        let due = try store.read { session in
            try session.exists("""
                SELECT 1 FROM trade WHERE state IN (\(list: TradeState.open.map(\.rawValue))) AND starts_at <= \(timestamp: now) LIMIT 1
                """)
        }
        guard due else { return }
        _ = try store.change(ChangeRequest(command: "roster.expire", key: nil, scope: "roster.expire", fingerprint: .null)) { change in
            try TradeTransitions.expireStarted(&change)
            return true
        }
    }

    func read<T>(_ body: (any SQLSession) throws -> T) throws -> T {
        try store.read(body)
    }
}
