import TallyProtocol

/// What a service implements to be served by Tally's worker runtime.
///
/// Handlers are synchronous and run on the worker thread that received the request: one request
/// at a time per worker thread, which is 7/MDP's model. Run more threads (`--concurrency`) or more
/// processes to serve requests in parallel.
public protocol ServiceHandler: Sendable {
    /// The name workers register under with the gateway (`calc`, `accounts`, ...).
    var serviceName: String { get }

    /// The commands this service answers, by full name (`calc.tip`).
    var commands: CommandTable { get }
}

/// A service's commands by name, each a function from validated arguments to an encodable result.
public struct CommandTable: Sendable {
    public typealias Handler = @Sendable (Arguments, RequestContext) throws -> any Encodable & Sendable

    private var handlers: [String: Handler] = [:]

    public init() {}

    /// Registers `name` (the full command, `calc.tip`). Errors thrown as `TallyError` reach the
    /// client as they are; any other error becomes `internal`.
    public mutating func register<Result: Encodable & Sendable>(
        _ name: String, _ handler: @escaping @Sendable (Arguments, RequestContext) throws -> Result
    ) {
        handlers[name] = { args, context in try handler(args, context) }
    }

    public var names: [String] { handlers.keys.sorted() }

    public func handler(for command: String) -> Handler? { handlers[command] }
}
