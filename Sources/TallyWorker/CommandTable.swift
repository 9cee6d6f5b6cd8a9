import TallyProtocol
import TallyStorage

/// A service's commands: each registered once, with its kind (query or change), who may run it,
/// what it does, and its handler. The gateway's catalog is read off these tables, so what a
/// command is, is written in one place, beside the code that runs it.
///
/// A table is built without the service's resources (its store, its settings) and bound to them
/// when a worker starts, so the catalog can be read in any process:
///
/// ```swift
/// static let table = CommandTable<AccountStore>("accounts") { table in
///     table.change("accounts.create", access: .user, "Add a budget account.", CreateCommand.run)
///     table.query("accounts.list", access: .user, "The caller's accounts, a page at a time.", ListCommand.run)
/// }
/// ```
public struct CommandTable<Resources: Sendable>: Sendable {
    public typealias Handler = @Sendable (Arguments, RequestContext, Resources) throws -> any Encodable & Sendable

    public struct Entry: Sendable {
        public let description: CommandDescription
        let handler: Handler
    }

    /// The service every command of the table belongs to.
    public let service: String
    private var entries: [String: Entry] = [:]

    public init(_ service: String, _ build: (inout CommandTable) -> Void = { _ in }) {
        self.service = service
        build(&self)
    }

    /// Registers a command that reads or computes only.
    public mutating func query<Result: Encodable & Sendable>(
        _ name: String, access: Access = .open, _ summary: String,
        _ handler: @escaping @Sendable (Arguments, RequestContext, Resources) throws -> Result
    ) {
        register(CommandDescription(name: name, kind: .query, access: access, summary: summary), handler)
    }

    /// Registers a command that changes state.
    public mutating func change<Result: Encodable & Sendable>(
        _ name: String, access: Access = .open, _ summary: String,
        _ handler: @escaping @Sendable (Arguments, RequestContext, Resources) throws -> Result
    ) {
        register(CommandDescription(name: name, kind: .change, access: access, summary: summary), handler)
    }

    private mutating func register<Result: Encodable & Sendable>(
        _ description: CommandDescription, _ handler: @escaping @Sendable (Arguments, RequestContext, Resources) throws -> Result
    ) {
        precondition(description.service == service, "\(description.name) does not belong to the \(service) table")
        precondition(entries[description.name] == nil, "\(description.name) is registered twice")
        entries[description.name] = Entry(description: description) { args, context, resources in
            try handler(args, context, resources)
        }
    }

    public var descriptions: [CommandDescription] { entries.values.map(\.description).sorted { $0.name < $1.name } }

    public func entry(_ name: String) -> Entry? { entries[name] }
}

/// A command of a service bound to the service's resources: what the worker runs.
public struct BoundCommand: Sendable {
    public let description: CommandDescription
    public let run: @Sendable (Arguments, RequestContext) throws -> any Encodable & Sendable
}

/// What a service implements to be served by Tally's worker runtime: a command table, and the
/// resources its handlers run with.
///
/// Handlers are synchronous and run on the worker thread that received the request: one request
/// at a time per worker thread, which is 7/MDP's model. Run more threads (`--concurrency`) or more
/// processes to serve requests in parallel.
public protocol ServiceHandler: Sendable {
    associatedtype Resources: Sendable
    /// The service's commands; the same for every instance, so it can be read without resources.
    static var table: CommandTable<Resources> { get }
    var resources: Resources { get }
    /// The store whose changes a worker thread commits together when several arrive at once (see
    /// `ServiceStore.commitTogether`), or nil (the default) to run each change on its own. A
    /// service opts in when its changes are short database work: while one thread's changes run,
    /// the store's other writers wait (a password hash would hold them all up).
    var sharedTransactionStore: ServiceStore? { get }
}

extension ServiceHandler {
    public var sharedTransactionStore: ServiceStore? { nil }
}

extension ServiceHandler {
    /// The name workers register under with the gateway (`calc`, `accounts`, ...).
    public static var serviceName: String { table.service }
    public var serviceName: String { Self.table.service }
    public static var descriptions: [CommandDescription] { table.descriptions }
    public var descriptions: [CommandDescription] { Self.table.descriptions }

    /// The command `name`, ready to run, or nil when the service has none by that name.
    public func command(named name: String) -> BoundCommand? {
        guard let entry = Self.table.entry(name) else { return nil }
        let resources = resources
        return BoundCommand(description: entry.description) { args, context in try entry.handler(args, context, resources) }
    }
}
