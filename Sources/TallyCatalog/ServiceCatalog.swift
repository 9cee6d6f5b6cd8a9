import TallyAccounts
import TallyAuth
import TallyCalc
import TallyCurrency
import TallyIdentity
import TallyNotifier
import TallyProtocol
import TallyRoster
import TallyShopping
import TallyStorage
import TallyWorker

/// Every service Tally ships, in one place: the handlers `tally worker` runs, the middleware every
/// worker puts in front of them, and the command catalog the gateway serves, read off their
/// command tables. A new service registers here and nowhere else.
public enum ServiceCatalog {
    /// Every service's handler type.
    public static let handlers: [any ServiceHandler.Type] = [
        CalcService.self, AccountsService.self, CurrencyService.self, ShoppingService.self, RosterService.self, AlertsService.self,
        IdentityService.self,
    ]

    /// Every command of every service, and the gateway's own.
    public static let commands = CommandCatalog(handlers.flatMap { $0.descriptions } + CommandCatalog.gateway)

    /// Every service `tally up` starts one worker of. (`alerts` is served by the notifier.)
    public static let all = ["calc", "accounts", "currency", "shopping", "roster", "identity"]

    /// Every service `tally worker` accepts: those of `tally up`, and `alerts` (replicas of the
    /// notifier's `alerts.list` on its data).
    public static var workerServices: [String] { all + ["alerts"] }

    /// The databases of a deployment, by name: one per stateful service, and the notifier's
    /// (which `alerts` workers read).
    public static let databases = ["accounts", "currency", "shopping", "roster", "identity", "notifier"]

    /// Services that record domain events, whose workers run an event publisher.
    public static let publishingEvents: Set<String> = ["accounts", "shopping", "roster", "identity"]

    /// What every worker (the notifier's `alerts` worker too) runs in front of each handler:
    /// authentication, which verifies the envelope's token with `verifier` and enforces each
    /// command's `Access`.
    public static func middleware(verifier: AccessTokenVerifier) -> [any RequestMiddleware] {
        [AuthenticationMiddleware(verifier: verifier)]
    }

    /// The handler of the service `name`, with its data opened (and migrated) in `dataDirectory`.
    public static func handler(
        named name: String, dataDirectory: String, options: ServiceOptions = ServiceOptions()
    ) throws -> (any ServiceHandler)? {
        switch name {
        case "calc": CalcService()
        case "accounts":
            AccountsService(store: try AccountStore(
                engine: try engine(for: "accounts", dataDirectory: dataDirectory), eventSink: options.eventSink))
        case "currency":
            try CurrencyService(
                engine: try engine(for: "currency", dataDirectory: dataDirectory), chunkDelay: options.currencyLoadDelay)
        case "shopping":
            ShoppingService(store: try ShoppingStore(
                engine: try engine(for: "shopping", dataDirectory: dataDirectory), eventSink: options.eventSink))
        case "roster":
            RosterService(store: try RosterStore(
                engine: try engine(for: "roster", dataDirectory: dataDirectory), eventSink: options.eventSink))
        case "alerts": AlertsService(store: try NotifierStore(engine: try engine(for: "notifier", dataDirectory: dataDirectory)))
        case "identity": try identityService(dataDirectory: dataDirectory, options: options)
        default: nil
        }
    }

    private static func identityService(dataDirectory: String, options: ServiceOptions) throws -> IdentityService {
        guard let signingKey = options.signingKey else {
            throw KeyFileError("the identity service signs access tokens and needs a private key (--signing-key)")
        }
        return try IdentityService(
            store: try identityStore(dataDirectory: dataDirectory, eventSink: options.eventSink), signingKey: signingKey,
            settings: options.identity)
    }

    /// The identity service's data in `dataDirectory`, for the service and for operators' tools.
    public static func identityStore(dataDirectory: String, eventSink: (any EventSink)? = nil) throws -> IdentityStore {
        try IdentityStore(engine: try engine(for: "identity", dataDirectory: dataDirectory), eventSink: eventSink)
    }

    /// Where the data called `name` (`accounts`, `currency`, `notifier`) lives:
    /// `<dataDirectory>/<name>.sqlite`. The one place that picks the storage engine, for workers
    /// and for the commands that open a service's data themselves (`tally notifier`,
    /// `tally currency load`).
    public static func engine(for name: String, dataDirectory: String) throws -> any StorageEngine {
        try SQLiteEngine(directory: dataDirectory, name: name)
    }
}

/// Settings only some services use, from `tally worker`'s flags.
public struct ServiceOptions {
    /// currency: a pause before each chunk of the data load, so tests can watch it load.
    public var currencyLoadDelay: Duration = .zero
    /// Services that record events: where committed events go (the worker's publisher).
    public var eventSink: (any EventSink)?
    /// identity: the key access tokens are signed with.
    public var signingKey: TokenSigningKey?
    /// identity: token lifetimes, password hashing, login throttling.
    public var identity: IdentitySettings

    public init(
        currencyLoadDelay: Duration = .zero, eventSink: (any EventSink)? = nil, signingKey: TokenSigningKey? = nil,
        identity: IdentitySettings = IdentitySettings()
    ) {
        self.currencyLoadDelay = currencyLoadDelay
        self.eventSink = eventSink
        self.signingKey = signingKey
        self.identity = identity
    }
}
