import Foundation
import ServiceLifecycle
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
///
/// A command registered with an `access` has a handler that takes the caller, never optional; an
/// open one has a handler that takes none. Who may run it is enforced by `AccessControl`, so a
/// handler checks nothing about its caller.
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

    /// Registers a command that reads or computes only, open to anyone: its handler is handed no caller.
    public mutating func query<Result: Encodable & Sendable>(
        _ name: String, _ summary: String, _ handler: @escaping @Sendable (Arguments, RequestContext, Resources) throws -> Result
    ) {
        register(CommandDescription(name: name, kind: .query, access: .open, summary: summary), handler)
    }

    /// Registers a command that reads or computes only, for a caller `access` admits: its handler
    /// is handed that caller, checked by `AccessControl` before it runs.
    public mutating func query<Result: Encodable & Sendable>(
        _ name: String, access: CallerAccess, _ summary: String,
        _ handler: @escaping @Sendable (Arguments, Caller, RequestContext, Resources) throws -> Result
    ) {
        register(.query, name, access, summary, handler)
    }

    /// Registers a command that changes state, open to anyone: its handler is handed no caller.
    public mutating func change<Result: Encodable & Sendable>(
        _ name: String, _ summary: String, _ handler: @escaping @Sendable (Arguments, RequestContext, Resources) throws -> Result
    ) {
        register(CommandDescription(name: name, kind: .change, access: .open, summary: summary), handler)
    }

    /// Registers a command that changes state, for a caller `access` admits: its handler is handed
    /// that caller, checked by `AccessControl` before it runs.
    public mutating func change<Result: Encodable & Sendable>(
        _ name: String, access: CallerAccess, _ summary: String,
        _ handler: @escaping @Sendable (Arguments, Caller, RequestContext, Resources) throws -> Result
    ) {
        register(.change, name, access, summary, handler)
    }

    /// Registers a command for a caller `access` admits, with a handler that is handed the caller
    /// `AccessControl` admitted. Reached without one only by a bug in the request path, which
    /// fails closed.
    private mutating func register<Result: Encodable & Sendable>(
        _ kind: CommandKind, _ name: String, _ access: CallerAccess, _ summary: String,
        _ handler: @escaping @Sendable (Arguments, Caller, RequestContext, Resources) throws -> Result
    ) {
        let description = CommandDescription(
            name: name, kind: kind, access: access.access, confirmsCaller: access.confirmsCaller,
            flagRoles: access.flagRoles, summary: summary)
        register(description) { args, context, resources in
            guard let caller = context.caller else {
                throw TallyError(.internal, "\(context.command) reached its handler without a caller; AccessControl must run first")
            }
            return try handler(args, caller, context, resources)
        }
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
    /// the store's other writers wait (a password hash would hold them all up). Such a service
    /// runs one thread per gateway unless told otherwise (`defaultConcurrency`).
    var sharedTransactionStore: ServiceStore? { get }
    /// The service's own word on who callers are now (identity's sessions and roles), asked for
    /// commands registered with `CallerAccess.confirmed`; nil (the default) for a service that has
    /// none, whose commands take a verified token as it is until it expires.
    var callerAuthority: (any CallerAuthority)? { get }
    /// What the service runs beside its workers for as long as its process serves (currency's
    /// data load): services for the process's group, put before the workers so that they start
    /// first and stop after them. None (the default) for most services.
    var backgroundServices: [any Service] { get }
}

extension ServiceHandler {
    public var sharedTransactionStore: ServiceStore? { nil }
    public var callerAuthority: (any CallerAuthority)? { nil }
    public var backgroundServices: [any Service] { [] }

    /// MDP workers (threads) per gateway when the operator does not say (`--concurrency`): one
    /// per core, except for a service whose changes share transactions, which gets one. A
    /// process's write transactions commit one at a time on every engine (its commit order; on
    /// PostgreSQL the commit returns once its log is flushed, and the event counter's row stays
    /// locked until then), so a second thread's changes only take turns with the first's, and
    /// each thread's batch costs a transaction and a sync of its own: one thread takes the
    /// process's requests at once (up to `capacity`) and commits them together. That took a sixth
    /// to a quarter off the CPU of a keyed write on SQLite (docs/performance.md, December 2, 2026)
    /// and a seventh on PostgreSQL, with a tenth more writes a second and the p99 from about
    /// 200 ms to 30 (December 6). Reads then share that thread too; a read-heavy deployment sets
    /// `--concurrency`.
    public var defaultConcurrency: Int {
        sharedTransactionStore == nil ? ProcessInfo.processInfo.activeProcessorCount : 1
    }
}

/// A service whose resources are its data alone and whose changes are short database work
/// (accounts, shopping, roster): its changes share transactions (`sharedTransactionStore`), so
/// it runs one thread per gateway by default. Identity is no such service: a password hash would
/// hold up every change sharing its transaction.
public protocol StoreBackedService: ServiceHandler where Resources: ServiceData {}

extension StoreBackedService {
    public var sharedTransactionStore: ServiceStore? { resources.store }
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

/// Who may run a command that acts for a caller: `Access` without `.open`, so that registering a
/// command with one gives its handler a caller that is never optional; whether the service's
/// `CallerAuthority` confirms that caller first (`.confirmed`); and which of its flags need a role
/// of their own (`.flag(_:needsRole:)`).
public struct CallerAccess: Sendable {
    let access: Access
    var confirmsCaller = false
    var flagRoles: [String: String] = [:]

    /// Any signed-in person.
    public static let user = CallerAccess(access: .user)

    /// A caller holding `role` (`admin`, `service`).
    public static func role(_ role: String) -> CallerAccess { CallerAccess(access: .role(role)) }

    /// The same, with the caller confirmed by the service's authority before the role check: their
    /// session still open, their roles as they are now. For commands that must not outlive a
    /// logout or a revoked role by a token's lifetime (identity's privileged commands).
    public var confirmed: CallerAccess {
        var access = self
        access.confirmsCaller = true
        return access
    }

    /// The same, with the boolean argument `argument`, when true, allowed only to a caller holding
    /// `role`: for a flag that reaches past the caller's own data (`alerts.list`'s `all_owners`).
    public func flag(_ argument: String, needsRole role: String) -> CallerAccess {
        var access = self
        access.flagRoles[argument] = role
        return access
    }
}
