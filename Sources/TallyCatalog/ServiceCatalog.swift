import ServiceLifecycle
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
import TallyTracing
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

    /// What every worker (the notifier's `alerts` worker too) runs in front of each handler, in
    /// order: the request's span when tracing is on (first, so it covers all the request goes
    /// through), `inner` (a debug build's fault injection), then authentication, which verifies
    /// the envelope's token with `verifier`. `AccessControl` comes last by itself (`RequestProcessor`).
    public static func middleware(
        verifier: AccessTokenVerifier, tracer: TallyTracer?, inner: [any RequestMiddleware] = []
    ) -> [any RequestMiddleware] {
        (tracer.map { [RequestTracing(tracer: $0)] } ?? []) + inner + [AuthenticationMiddleware(verifier: verifier)]
    }

    /// The service `name` ready to serve: its handler, with its data opened (and migrated) at
    /// `data`, and what its process runs beside the workers. Nil for a name that is no service.
    public static func open(
        _ name: String, data: DataLocation, options: ServiceOptions = ServiceOptions()
    ) throws -> OpenedService? {
        let engines = OpenedEngines(data)
        guard let handler = try handler(named: name, engines: engines, options: options) else { return nil }
        return OpenedService(handler: handler, backgroundServices: engines.opened.flatMap(\.backgroundServices) + handler.backgroundServices)
    }

    private static func handler(named name: String, engines: OpenedEngines, options: ServiceOptions) throws -> (any ServiceHandler)? {
        switch name {
        case "calc": CalcService()
        case "accounts":
            AccountsService(store: try AccountStore(
                engine: try engines.engine(for: "accounts"), eventSink: options.eventSink,
                transactionObserver: options.transactionObserver))
        case "currency":
            try CurrencyService(
                engine: try engines.engine(for: "currency"), beforeChunk: options.beforeCurrencyChunk)
        case "shopping":
            ShoppingService(store: try ShoppingStore(
                engine: try engines.engine(for: "shopping"), eventSink: options.eventSink,
                transactionObserver: options.transactionObserver))
        case "roster":
            RosterService(store: try RosterStore(
                engine: try engines.engine(for: "roster"), eventSink: options.eventSink,
                transactionObserver: options.transactionObserver))
        case "alerts": AlertsService(store: try NotifierStore(engine: try engines.engine(for: "notifier")))
        case "identity":
            try identityService(engine: try engines.engine(for: "identity"), options: options)
        default: nil
        }
    }

    private static func identityService(engine: any StorageEngine, options: ServiceOptions) throws -> IdentityService {
        guard let signingKey = options.signingKey else {
            throw KeyFileError("the identity service signs access tokens and needs a private key (--signing-key)")
        }
        return try IdentityService(
            store: try IdentityStore(engine: engine, eventSink: options.eventSink, transactionObserver: options.transactionObserver),
            signingKey: signingKey,
            settings: options.identity)
    }

    /// The identity service's data, for the service and for operators' tools.
    public static func identityStore(
        data: DataLocation, eventSink: (any EventSink)? = nil, transactionObserver: (any TransactionObserver)? = nil
    ) throws -> IdentityStore {
        try IdentityStore(engine: try data.engine(for: "identity"), eventSink: eventSink, transactionObserver: transactionObserver)
    }
}

/// A service ready to serve, from `ServiceCatalog.open`.
public struct OpenedService: Sendable {
    public let handler: any ServiceHandler
    /// What the process runs beside the workers: its engines' services (SQLite's checkpointer)
    /// first, then the handler's own (currency's data load). A group stops its services in
    /// reverse order, so an engine's outlast everything that writes to it.
    public let backgroundServices: [any Service]
}

/// The engines opened for one service, so that what each runs in the background is not left out.
private final class OpenedEngines {
    let data: DataLocation
    private(set) var opened: [any StorageEngine] = []

    init(_ data: DataLocation) {
        self.data = data
    }

    func engine(for name: String) throws -> any StorageEngine {
        let engine = try data.engine(for: name)
        opened.append(engine)
        return engine
    }
}

/// Settings only some services use, from `tally worker`'s flags.
public struct ServiceOptions {
    /// currency: called before each chunk of the data load (see `CurrencyLoader.beforeChunk`).
    public var beforeCurrencyChunk: (@Sendable (Int) -> Void)?
    /// Services that record events: where committed events go (the worker's publisher).
    public var eventSink: (any EventSink)?
    /// identity: the key access tokens are signed with.
    public var signingKey: TokenSigningKey?
    /// identity: token lifetimes, password hashing, login throttling.
    public var identity: IdentitySettings
    /// Services that change state: told of each change's transaction (the worker's tracing).
    public var transactionObserver: (any TransactionObserver)?

    public init(
        beforeCurrencyChunk: (@Sendable (Int) -> Void)? = nil, eventSink: (any EventSink)? = nil, signingKey: TokenSigningKey? = nil,
        identity: IdentitySettings = IdentitySettings()
    ) {
        self.beforeCurrencyChunk = beforeCurrencyChunk
        self.eventSink = eventSink
        self.signingKey = signingKey
        self.identity = identity
    }
}
