import TallyProtocol
import TallyStorage

/// The roster service's data as its commands use it.
public struct RosterStore: ServiceData {
    public let store: ServiceStore

    /// Opens the roster data on `engine` and brings its schema up to date.
    ///
    /// Every change first expires the open trades whose shifts have started, inside its own
    /// transaction (`TradeTransitions.expireStarted`), so no change acts on a trade whose shift
    /// started a moment ago. It used to do so also in a transaction of its own before each change,
    /// a read and often a second commit per change, so that a refused change still wrote the
    /// expiry down; that is not needed: every read already treats such a trade as expired
    /// (`Trade.state(at:)`, `ScheduleReader`), and the next change that commits writes it
    /// down with its `roster.trade_expired` event.
    public init(engine: any StorageEngine, eventSink: (any EventSink)? = nil, transactionObserver: (any TransactionObserver)? = nil) throws {
        store = try ServiceStore(
            service: "roster", engine: engine, migrations: RosterSchema.migrations, sink: eventSink, observer: transactionObserver,
            beforeEachChange: { change in try TradeTransitions.expireStarted(&change) })
    }
}
