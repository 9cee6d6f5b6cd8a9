import TallyProtocol
import TallyStorage

/// The shopping service's data as its commands use it: the service's store (service `shopping`).
public struct ShoppingStore: ServiceData {
    public let store: ServiceStore

    /// Opens the shopping data on `engine` and brings its schema up to date.
    public init(engine: any StorageEngine, eventSink: (any EventSink)? = nil, transactionObserver: (any TransactionObserver)? = nil) throws {
        store = try ServiceStore(service: "shopping", engine: engine, migrations: ShoppingSchema.migrations, sink: eventSink,
            observer: transactionObserver)
    }
}
