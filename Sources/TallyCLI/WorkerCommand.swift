import ArgumentParser
import TallyCatalog
import TallyLifecycle
import TallyProtocol
import TallyWorker
import ZeroMQ

struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Run workers of one service, connected to the gateway's backend.",
        discussion: "Services: \(ServiceCatalog.all.joined(separator: ", ")).")

    @Argument(help: "The service to serve: \(ServiceCatalog.all.joined(separator: ", ")).")
    var service: String

    @OptionGroup var threads: WorkerThreadOptions

    @OptionGroup var backend: BackendOption

    @OptionGroup var heartbeat: HeartbeatOptions

    @OptionGroup var dataDirectory: DataDirectoryOption

    @OptionGroup var database: DatabaseOptions

    @OptionGroup var messageSize: MessageSizeOption

    @Option(
        help: EnvironmentDefaults.eventsEndpoint.help("""
            Where services that record events publish them: the notifier's inlet; several notifiers' inlets separated by \
            commas to publish every event to each (notifiers sharing one PostgreSQL database).
            """))
    var eventsEndpoint: String = EnvironmentDefaults.eventsEndpoint.value

    @OptionGroup var keys: KeyOptions

    @OptionGroup var curve: CurveOptions

    @OptionGroup var identity: IdentityOptions

    #if TALLY_FAULT_INJECTION
    @OptionGroup var faultOptions: FaultOptions
    #endif

    @OptionGroup var process: ProcessOptions

    func validate() throws {
        guard ServiceCatalog.workerServices.contains(service) else {
            throw ValidationError("unknown service '\(service)'; choose one of \(ServiceCatalog.workerServices.joined(separator: ", "))")
        }
        _ = try EndpointList.parse(backend.endpoint, option: "--backend")
        _ = try EndpointList.parse(eventsEndpoint, option: "--events-endpoint")
    }

    func run() async throws {
        let logger = process.bootstrap(label: "tally.worker.\(service)")
        let tracer = try process.startTracing(serviceName: "tally-\(service)", logger: logger)
        let context = try ZMQContext()
        let publisher = ServiceCatalog.publishingEvents.contains(service)
            ? EventPublisher(
                service: service, endpoints: try EndpointList.parse(eventsEndpoint, option: "--events-endpoint"), context: context, logger: logger, curve: try curve.notifier())
            : nil
        var options = ServiceOptions(eventSink: publisher, identity: identity.settings)
        options.transactionObserver = tracer.map { TransactionTracing(tracer: $0) }
        #if TALLY_FAULT_INJECTION
        let faults = faultOptions.faults
        options.eventSink = faults.eventSink(replacing: publisher, logger: logger)
        options.beforeCurrencyChunk = faults.beforeCurrencyChunk
        let faultMiddleware = faults.middleware
        #else
        let faultMiddleware: [any RequestMiddleware] = []
        #endif
        let signingKey = service == "identity" ? try identity.loadSigningKey(dataDirectory: dataDirectory.path) : nil
        options.signingKey = signingKey
        let verifier = try keys.verifier(dataDirectory: dataDirectory.path, extra: signingKey.map { [$0.verificationKey] } ?? [], logger: logger)
        let middleware = ServiceCatalog.middleware(verifier: verifier, tracer: tracer, inner: faultMiddleware)
        guard let opened = try ServiceCatalog.open(service, data: try database.location(dataDirectory: dataDirectory.path), options: options) else {
            throw ValidationError("unknown service '\(service)'")
        }
        let configuration = WorkerConfiguration(
            backendEndpoints: try EndpointList.parse(backend.endpoint, option: "--backend"), concurrency: threads.threadsAskedFor, capacity: threads.capacity, heartbeatInterval: heartbeat.interval,
            liveness: heartbeat.liveness, maximumMessageBytes: messageSize.bytes, curve: try curve.gateway())
        let readiness = Readiness(parts: [service])
        let worker = WorkerService(
            handler: opened.handler, middleware: middleware, configuration: configuration,
            context: context, logger: logger,
            readiness: readiness.reporter(for: service))
        // A service group stops its services in reverse order: the worker first (it answers what it
        // holds, and those answers' events are queued), then the publisher, which sends them, and
        // last what the service runs beside its workers (currency's data load, then the database's
        // checkpointer).
        try await process.runServices(
            opened.backgroundServices + (publisher.map { [$0] } ?? []) + [worker], readiness: readiness, logger: logger)
        // The answers and events of the requests it finished leave before the process does.
        context.terminate(within: .seconds(5))
    }
}
