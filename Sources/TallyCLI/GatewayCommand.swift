import ArgumentParser
import TallyCatalog
import TallyGateway
import TallyLifecycle
import ZeroMQ

struct GatewayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gateway",
        abstract: "Run the gateway: the 7/MDP broker between clients and workers.")

    @Option(help: "Client endpoint to bind (ROUTER). Env: TALLY_GATEWAY_FRONTEND.")
    var frontend: String = EnvironmentDefaults.frontend

    @Option(help: "Worker endpoint to bind (ROUTER, 7/MDP workers). Env: TALLY_GATEWAY_BACKEND.")
    var backend: String = EnvironmentDefaults.backend

    @OptionGroup var heartbeat: HeartbeatOptions

    @Option(help: "Largest request accepted, in bytes. Env: TALLY_MAX_MESSAGE_BYTES.")
    var maxMessageBytes: Int = EnvironmentDefaults.maximumMessageBytes

    @Option(help: "Deadline of a request that sets no deadline_ms. Env: TALLY_DEFAULT_DEADLINE_MS.")
    var defaultDeadlineMs: Int = EnvironmentDefaults.defaultDeadlineMilliseconds

    @Option(help: "Requests a service may have waiting for a worker before new ones are refused. Env: TALLY_MAX_QUEUE_DEPTH.")
    var maxQueueDepth: Int = EnvironmentDefaults.maximumQueueDepth

    @Option(help: "Replies held for one client that is not reading before its new requests are not accepted. Env: TALLY_MAX_HELD_REPLIES.")
    var maxHeldReplies: Int = EnvironmentDefaults.maximumHeldReplies

    @OptionGroup var process: ProcessOptions

    func validate() throws {
        guard maxMessageBytes >= 1024 else { throw ValidationError("--max-message-bytes must be at least 1024") }
        guard defaultDeadlineMs >= 1 else { throw ValidationError("--default-deadline-ms must be at least 1") }
        guard maxQueueDepth >= 1 else { throw ValidationError("--max-queue-depth must be at least 1") }
        guard maxHeldReplies >= 1 else { throw ValidationError("--max-held-replies must be at least 1") }
    }

    func run() async throws {
        let logger = process.bootstrap(label: "tally.gateway")
        let configuration = GatewayConfiguration(
            frontendEndpoint: frontend, backendEndpoint: backend, heartbeatInterval: heartbeat.interval,
            liveness: heartbeat.liveness, maximumMessageBytes: maxMessageBytes, defaultDeadline: .milliseconds(defaultDeadlineMs),
            maximumQueueDepth: maxQueueDepth, maximumHeldReplies: maxHeldReplies, catalog: ServiceCatalog.commands)
        let context = try ZMQContext()
        let readiness = Readiness(parts: ["gateway"])
        try await process.runServices(
            [GatewayService(configuration: configuration, context: context, logger: logger, readiness: readiness.reporter(for: "gateway"))],
            readiness: readiness, logger: logger)
    }
}
