import ArgumentParser
import ServiceLifecycle
import TallyCatalog
import TallyGateway
import TallyLifecycle
import TallyProtocol
import ZeroMQ

struct GatewayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gateway",
        abstract: "Run the gateway: the 7/MDP broker between clients and workers.")

    @OptionGroup var frontend: FrontendOption

    @OptionGroup var backend: BackendOption

    @OptionGroup var heartbeat: HeartbeatOptions

    @OptionGroup var messageSize: MessageSizeOption

    @Option(help: EnvironmentDefaults.defaultDeadlineMilliseconds.help("Deadline of a request that sets no deadline_ms."))
    var defaultDeadlineMs: Int = EnvironmentDefaults.defaultDeadlineMilliseconds.value

    @Option(help: EnvironmentDefaults.maximumQueueDepth.help("Requests a service may have waiting for a worker before new ones are refused."))
    var maxQueueDepth: Int = EnvironmentDefaults.maximumQueueDepth.value

    @Option(help: EnvironmentDefaults.maximumClientRequests.help("Requests one client may have waiting or running at once before its new ones are refused."))
    var maxClientRequests: Int = EnvironmentDefaults.maximumClientRequests.value

    @Option(help: EnvironmentDefaults.maximumHeldReplies.help("Replies held for one client that is not reading before its new requests are not accepted."))
    var maxHeldReplies: Int = EnvironmentDefaults.maximumHeldReplies.value

    @Option(help: EnvironmentDefaults.drainTimeoutMilliseconds.help("On SIGTERM, how long to keep serving accepted requests (refusing new ones) before answering the rest unavailable."))
    var drainTimeoutMs: Int = EnvironmentDefaults.drainTimeoutMilliseconds.value

    @Option(
        help: EnvironmentDefaults.drainQuietMilliseconds.help("""
            On SIGTERM, once every accepted request is answered, how long the client port stays open after the last \
            request arrived; later arrivals are answered unavailable too, not dropped. Within the drain timeout.
            """))
    var drainQuietMs: Int = EnvironmentDefaults.drainQuietMilliseconds.value
    @OptionGroup var curveKey: CurveKeyOption

    @OptionGroup var curve: ServerCurveOptions

    @OptionGroup var process: ProcessOptions

    func validate() throws {
        guard drainTimeoutMs >= 0 else { throw ValidationError("--drain-timeout-ms must be 0 or more") }
        guard drainQuietMs >= 0 else { throw ValidationError("--drain-quiet-ms must be 0 or more") }
        guard defaultDeadlineMs >= 1 else { throw ValidationError("--default-deadline-ms must be at least 1") }
        guard maxQueueDepth >= 1 else { throw ValidationError("--max-queue-depth must be at least 1") }
        guard maxClientRequests >= 1 else { throw ValidationError("--max-client-requests must be at least 1") }
        guard maxHeldReplies >= 1 else { throw ValidationError("--max-held-replies must be at least 1") }
        // Workers and clients take lists of gateways; a gateway binds one of each, and a shared
        // tally.env can easily hand it a worker's list.
        for (option, endpoint) in [("--frontend", frontend.endpoint), ("--backend", backend.endpoint)] where endpoint.contains(",") {
            throw ValidationError(
                "\(option) is one endpoint for a gateway to bind, not a list ('\(endpoint)'); run one gateway per endpoint")
        }
    }

    func run() async throws {
        let logger = process.bootstrap(label: "tally.gateway")
        let tracer = try process.startTracing(serviceName: "tally-gateway", logger: logger)
        let keys = try curveKey.keys()
        let context = try ZMQContext()
        let configuration = GatewayConfiguration(
            frontendEndpoint: frontend.endpoint, backendEndpoint: backend.endpoint, heartbeatInterval: heartbeat.interval,
            liveness: heartbeat.liveness, maximumMessageBytes: messageSize.bytes, defaultDeadline: .milliseconds(defaultDeadlineMs),
            maximumQueueDepth: maxQueueDepth, maximumClientRequests: maxClientRequests, maximumHeldReplies: maxHeldReplies,
            drainTimeout: .milliseconds(drainTimeoutMs), drainQuietPeriod: .milliseconds(drainQuietMs), catalog: ServiceCatalog.commands,
            schemas: ServiceCatalog.schemas, curve: keys, tracer: tracer)
        let readiness = Readiness(parts: ["gateway"])
        let gateway = GatewayService(
            configuration: configuration, context: context, logger: logger, readiness: readiness.reporter(for: "gateway"))
        // Before the gateway binds (in run): libzmq admits every CURVE client while no ZAP handler listens.
        let security = try await curve.security(
            keys: keys, binding: [frontend.endpoint, backend.endpoint], process: "gateway",
            connections: [CurveRole.client.domain: ConnectionGauge(), CurveRole.worker.domain: ConnectionGauge()],
            context: context, logger: logger)
        let guards: [any Service] = security.map { security in [SocketLoopService(name: "zap", security.handler.serve), security.reloader] } ?? []
        try await process.runServices(guards + [gateway], readiness: readiness, logger: logger)
        // The last answers of the drain leave before the process does.
        context.terminate(within: .seconds(5))
    }
}
