import TallyProtocol

/// A service's data as its commands use it (`AccountStore`, `ShoppingStore`, ...): the service's
/// `ServiceStore` and the queries of its own. The store's entries are passed through, so a
/// command writes `store.change(...)` whatever its service, and every service's data is reached
/// the same way.
public protocol ServiceData: Sendable {
    var store: ServiceStore { get }
}

extension ServiceData {
    /// See `ServiceStore.read(_:)`.
    public func read<T>(_ body: (any SQLSession) throws -> T) throws -> T {
        try store.read(body)
    }

    /// See `ServiceStore.change(_:_:)`.
    public func change<Result: Encodable & Sendable>(
        _ request: ChangeRequest, _ body: (inout Change) throws -> Result
    ) throws -> StoredResult {
        try store.change(request, body)
    }

    /// See `ServiceStore.change(_:_:owner:_:)`: the one entry for a command's keyed change.
    public func change<Result: Encodable & Sendable>(
        _ context: RequestContext, _ args: Arguments, owner: String, _ body: (inout Change) throws -> Result
    ) throws -> StoredResult {
        try store.change(context, args, owner: owner, body)
    }

    /// See `ServiceStore.change(unkeyed:_:)`.
    public func change<Result>(unkeyed command: String, _ body: (inout Change) throws -> Result) throws -> Result {
        try store.change(unkeyed: command, body)
    }

    /// See `ServiceStore.storedResult(for:)`.
    public func storedResult(for request: ChangeRequest) throws -> StoredResult? {
        try store.storedResult(for: request)
    }
}
