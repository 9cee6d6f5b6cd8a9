import ArgumentParser
import ServiceLifecycle
import Foundation
import TallyAuth
import TallyCatalog
import TallyLifecycle
import TallyNotifier
import TallyWorker
import ZeroMQ

struct NotifierCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notifier",
        abstract: "Take every service's events, derive alerts by rule, store and publish them, and serve alerts.list.",
        discussion: """
            Workers' PUB sockets connect to --events-endpoint, where the notifier binds a SUB socket. \
            Each event is handled once (by event id); a hole in a service's sequence, and a periodic \
            check of every source, are filled by calling <service>.events through the gateway. \
            Alerts go to <data-dir>/notifier.sqlite and out on --alerts-endpoint (PUB) with topics \
            alert.<owner>.<kind>; every event is forwarded there as event.<type>. The notifier also serves \
            the alerts service to the gateway's --backend.
            """)

    @OptionGroup var endpoints: NotifierEndpointOptions

    @OptionGroup var frontend: FrontendOption

    @OptionGroup var backend: BackendOption

    @OptionGroup var dataDirectory: DataDirectoryOption

    @OptionGroup var database: DatabaseOptions

    @Option(help: EnvironmentDefaults.catchUpMilliseconds.help("Milliseconds between checks of every source for events not seen."))
    var catchUpMs: Int = EnvironmentDefaults.catchUpMilliseconds.value

    @Option(help: "Milliseconds one catch-up call waits for the gateway.")
    var catchUpTimeoutMs: Int = 2000

    @Option(
        help: EnvironmentDefaults.serviceTokenFile.help("""
            A file holding the notifier's service token (mode 0600; tally identity service-token notifier --out FILE \
            makes one), traded for access tokens to call <service>.events with (default: <data-dir>/keys/notifier.token \
            when it exists).
            """))
    var serviceTokenFile: String?

    @Option(
        help: EnvironmentDefaults.maximumEventBytes.help("""
            The largest event, in bytes, the notifier takes; a publisher that sends a larger one is disconnected \
            before it is read (it reconnects, and catch-up fetches what it lost).
            """))
    var maxEventBytes: Int = EnvironmentDefaults.maximumEventBytes.value

    @Option(
        help: EnvironmentDefaults.maximumQueuedAlerts.help("""
            Alerts and events queued for one subscriber that reads slowly; past it, that subscriber's messages are \
            dropped (tally watch fills the gap from alerts.list).
            """))
    var maxQueuedAlerts: Int = EnvironmentDefaults.maximumQueuedAlerts.value

    @OptionGroup var keys: KeyOptions

    @OptionGroup var curve: CurveOptions

    @OptionGroup var serverCurve: ServerCurveOptions

    @OptionGroup var heartbeat: HeartbeatOptions

    @OptionGroup var process: ProcessOptions

    func validate() throws {
        guard catchUpMs >= 10 else { throw ValidationError("--catch-up-ms must be at least 10") }
        guard catchUpTimeoutMs >= 10 else { throw ValidationError("--catch-up-timeout-ms must be at least 10") }
        // An event of Tally's is a few hundred bytes; below 4 KiB a genuine one could be refused.
        guard maxEventBytes >= 4096 else { throw ValidationError("--max-event-bytes must be at least 4096") }
        guard (1...Int(Int32.max)).contains(maxQueuedAlerts) else {
            throw ValidationError("--max-queued-alerts must be between 1 and \(Int32.max)")
        }
    }

    func run() async throws {
        let logger = process.bootstrap(label: "tally.notifier")
        let tracer = try process.startTracing(serviceName: "tally-notifier", logger: logger)
        let verifier = try keys.verifier(dataDirectory: dataDirectory.path, logger: logger)
        let serviceToken = try readServiceToken()
        if serviceToken == nil {
            logger.warning(
                "no service token: catch-up calls <service>.events without one, and services that need one refuse them; make one with tally identity service-token notifier")
        }
        let store = try NotifierStore(engine: try database.location(dataDirectory: dataDirectory.path).engine(for: "notifier"))
        let context = try ZMQContext()
        // One key pair serves the notifier's sockets and reaches the gateway, so --curve-key
        // without --gateway-key (or the other way round) is refused here.
        let gatewayCurve = try curve.gateway()
        var configuration = NotifierConfiguration(
            eventsEndpoint: endpoints.eventsEndpoint, alertsEndpoint: endpoints.alertsEndpoint, frontendEndpoint: frontend.endpoint,
            catchUpInterval: .milliseconds(catchUpMs), catchUpTimeout: .milliseconds(catchUpTimeoutMs),
            maximumEventBytes: Int64(maxEventBytes), maximumQueuedAlerts: Int32(maxQueuedAlerts),
            eventSources: NotifierConfiguration.eventSources(in: ServiceCatalog.commands), serviceToken: serviceToken,
            curve: gatewayCurve, tracer: tracer)
        configuration.frontendEndpoints = try EndpointList.parse(frontend.endpoint, option: "--frontend")
        let workers = WorkerConfiguration(
            backendEndpoints: try EndpointList.parse(backend.endpoint, option: "--backend"), heartbeatInterval: heartbeat.interval, liveness: heartbeat.liveness, curve: gatewayCurve)
        let readiness = Readiness(parts: ["notifier", "alerts"])
        let notifier = NotifierService(
            store: store, configuration: configuration, context: context, logger: logger,
            readiness: readiness.reporter(for: "notifier"))
        // Before the notifier binds (in run): libzmq admits every CURVE client while no ZAP handler listens.
        let security = try await serverCurve.security(
            keys: gatewayCurve?.keys, binding: [endpoints.eventsEndpoint, endpoints.alertsEndpoint], process: "notifier",
            connections: notifier.connections, context: context, logger: logger)
        let guards: [any Service] = security.map { security in [SocketLoopService(name: "zap", security.handler.serve), security.reloader] } ?? []
        // The database's own services (SQLite's checkpointer) first, so that they stop last.
        try await process.runServices(
            store.engine.backgroundServices + guards + [
                notifier,
                WorkerService(
                    handler: AlertsService(store: store),
                    middleware: ServiceCatalog.middleware(verifier: verifier, tracer: tracer),
                    configuration: workers, context: context, logger: logger,
                    readiness: readiness.reporter(for: "alerts")),
            ], readiness: readiness, logger: logger)
        // The last alerts and answers leave before the process does.
        context.terminate(within: .seconds(5))
    }

    /// The service token: from `--service-token-file`, or `<data-dir>/keys/notifier.token` when it exists.
    private func readServiceToken() throws -> String? {
        let defaultFile = KeyOptions.notifierTokenFile(dataDirectory: dataDirectory.path)
        guard let file = serviceTokenFile ?? EnvironmentDefaults.serviceTokenFile.value ?? (FileManager.default.fileExists(atPath: defaultFile) ? defaultFile : nil) else {
            return nil
        }
        let text = String(decoding: try SecretFile.read(file, what: "the service token file"), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw KeyFileError("the service token file \(file) is empty") }
        return text
    }
}
