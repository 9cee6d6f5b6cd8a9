/// Whether running a command changes state: what decides if it may run twice.
public enum CommandKind: String, Sendable, Codable {
    /// Reads or computes only (or changes nothing a second run would change): running it twice is
    /// harmless, so the gateway re-sends it when its worker dies.
    case query
    /// Changes state: re-sent only when the client supplied an `idempotency_key`.
    case change
}

/// Who may run a command. Checked in one place, by the worker's authentication middleware,
/// before the command's handler runs.
public enum Access: Sendable, Equatable, Codable {
    /// Anyone, with or without a token: calc, currency.
    case open
    /// A signed-in person (a valid token); the handler acts on that person's data.
    case user
    /// A caller holding this role (`admin`, `service`).
    case role(String)
}

/// One command as data: its name, its kind, who may run it and what it does.
public struct CommandDescription: Sendable, Equatable {
    /// The full name, `<service>.<command>`: `accounts.create`.
    public let name: String
    public let kind: CommandKind
    public let access: Access
    /// Whether the caller is confirmed with the service's own records (an open session, current
    /// roles) before `access` is checked, instead of taken from the token as it was signed.
    public let confirmsCaller: Bool
    /// Boolean arguments that, when true, reach past the caller's own data and so need a role of
    /// their own, by name: `alerts.list`'s `["all_owners": "admin"]`. `AccessControl` checks them
    /// with `access`, before the handler runs.
    public let flagRoles: [String: String]
    public let summary: String

    public init(
        name: String, kind: CommandKind, access: Access = .open, confirmsCaller: Bool = false,
        flagRoles: [String: String] = [:], summary: String
    ) {
        self.name = name
        self.kind = kind
        self.access = access
        self.confirmsCaller = confirmsCaller
        self.flagRoles = flagRoles
        self.summary = summary
    }

    public var service: Substring { Envelope.service(of: name) }
}

/// Every command a deployment knows, as data: assembled from the command tables that services
/// register their handlers in (and the gateway's own commands), so what a command is, is written
/// once, beside its handler.
///
/// The gateway uses it to tell an unknown service (`unimplemented`) from one whose workers have
/// not arrived yet, and to know which requests it may send to a second worker when the first
/// dies. The contract test checks it against `schemas/` and `docs/protocol.md`.
public struct CommandCatalog: Sendable {
    public let commands: [CommandDescription]
    private let byName: [String: CommandDescription]

    public init(_ commands: [CommandDescription]) {
        self.commands = commands.sorted { $0.name < $1.name }
        byName = Dictionary(commands.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    public func command(named name: String) -> CommandDescription? { byName[name] }

    /// Whether a request may run on a second worker after the first died holding it: a query, or
    /// a change the client made idempotent with a key. Commands the catalog does not know (a
    /// service of another MDP worker) are changes.
    public func isSafeToRetry(command: String, idempotencyKey: String?) -> Bool {
        idempotencyKey != nil || byName[command]?.kind == .query
    }

    /// Every service with a command here, the gateway's own included.
    public var services: Set<String> { Set(commands.map { String($0.service) }) }

    /// Services answered by the gateway itself, never by a worker.
    public static let gatewayServices: Set<String> = ["system", "mmi"]

    /// Services with a worker behind them: requests for one wait for a worker to appear.
    public var workerServices: Set<String> { services.subtracting(Self.gatewayServices) }

    /// The commands the gateway answers itself.
    public static let gateway = [
        CommandDescription(
            name: "system.describe", kind: .query, summary: "Each service's commands: their kind, who may call them, and their JSON Schemas."),
        CommandDescription(name: "system.ping", kind: .query, summary: "Liveness of the gateway."),
        CommandDescription(name: "system.services", kind: .query, summary: "Each service with its workers, queue and counters."),
        CommandDescription(name: "mmi.service", kind: .query, summary: "8/MMI: whether a service has a live worker."),
    ]

    public static func + (lhs: CommandCatalog, rhs: [CommandDescription]) -> CommandCatalog {
        CommandCatalog(lhs.commands + rhs)
    }
}
