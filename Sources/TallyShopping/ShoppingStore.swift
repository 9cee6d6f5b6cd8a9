import TallyProtocol
import TallyStorage

/// The shopping service's data as its commands use it: the service's store (service `shopping`).
public struct ShoppingStore: Sendable {
    public let store: ServiceStore

    /// Opens the shopping data on `engine` and brings its schema up to date.
    public init(engine: any StorageEngine, eventSink: (any EventSink)? = nil, transactionObserver: (any TransactionObserver)? = nil) throws {
        store = try ServiceStore(service: "shopping", engine: engine, migrations: ShoppingSchema.migrations, sink: eventSink,
            observer: transactionObserver)
    }

    /// Runs a change of `owner`'s lists or preferences, with the events it records, in one
    /// transaction; see `ServiceStore.change`. With an `idempotency_key`, a retry gets the first
    /// run's result back; keys are scoped by command and owner.
    func change<Result: Encodable & Sendable>(
        _ args: Arguments, _ context: RequestContext, owner: String, _ body: (inout Change) throws -> Result
    ) throws -> StoredResult {
        try store.change(ChangeRequest(context, args, owner: owner), body)
    }
}

/// Stored data the service cannot read: a bug or a hand edit, never the client's doing (`internal`).
struct ShoppingStoreFailure: Error, CustomStringConvertible {
    let description: String
}
