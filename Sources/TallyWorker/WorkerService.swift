import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import TallyLifecycle
import ZeroMQ

/// A worker process's long-running part: `concurrency` MDP workers for one service per gateway
/// (`WorkerConfiguration.backendEndpoints`), each on a thread of its own with a socket of its own.
/// Stops on graceful shutdown or cancellation; each worker finishes the requests in hand, and
/// those the gateway sends until it has acknowledged the worker's leaving (`MajordomoWorker`).
public struct WorkerService: Service {
    public let handler: any ServiceHandler
    public let configuration: WorkerConfiguration
    /// What every request passes through before its handler: authentication, in a Tally worker
    /// (after the metrics and logging every worker has, `observers(of:logger:)`).
    private let middleware: [any RequestMiddleware]
    private let context: ZMQContext
    private let logger: Logger
    private let readiness: ReadinessReporter

    /// - Parameters:
    ///   - middleware: the chain in front of every handler; given explicitly, so no worker is
    ///     started without thinking about authentication.
    ///   - readiness: told when every worker thread has heard from its gateway (so every gateway
    ///     counts all of them), and again whenever one loses its gateway and reconnects.
    public init(
        handler: any ServiceHandler, middleware: [any RequestMiddleware], configuration: WorkerConfiguration, context: ZMQContext,
        logger: Logger, readiness: ReadinessReporter = .none
    ) {
        self.handler = handler
        self.middleware = middleware
        self.configuration = configuration
        self.context = context
        self.logger = logger
        self.readiness = readiness
    }

    public func run() async throws {
        let backends = configuration.backendEndpoints
        guard !backends.isEmpty else { throw WorkerConfigurationError("no gateway backend endpoint to connect to") }
        let threadsPerGateway = max(1, configuration.concurrency ?? handler.defaultConcurrency)
        let stop = WakeupSignal()
        let processor = RequestProcessor(
            handler: handler, middleware: Self.observers(of: handler, logger: logger) + middleware,
            maximumMessageBytes: configuration.maximumMessageBytes, logger: logger)
        logger.info(
            "worker starting",
            metadata: [
                "service": "\(handler.serviceName)", "backend": "\(backends.joined(separator: ","))",
                "concurrency": .stringConvertible(threadsPerGateway),
            ])
        let registrations = RegistrationCount(
            service: handler.serviceName, threads: threadsPerGateway, backends: backends, readiness: readiness, logger: logger)
        try await withGracefulShutdownHandler {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (gateway, backend) in backends.enumerated() {
                    for thread in 0..<threadsPerGateway {
                        let index = gateway * threadsPerGateway + thread
                        var threadLogger = logger
                        threadLogger[metadataKey: "thread"] = "\(index)"
                        if backends.count > 1 { threadLogger[metadataKey: "backend"] = "\(backend)" }
                        let loggerForThread = threadLogger
                        group.addTask { [context, configuration] in
                            try await DedicatedThread.run(name: "\(processor.handler.serviceName)-worker-\(index)", stoppingWith: stop) {
                                try MajordomoWorker(
                                    context: context, configuration: configuration, endpoint: backend, processor: processor,
                                    stop: stop, logger: loggerForThread,
                                    onRegistration: { registrations.update(gateway: gateway, isRegistered: $0) }
                                ).run()
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
        } onGracefulShutdown: {
            stop.fire()
        }
        logger.info("worker stopped", metadata: ["service": "\(handler.serviceName)"])
    }

    /// The middleware every worker puts first, in front of the chain it was given: they count and
    /// log every reply (`RequestMiddleware.answered(_:)`), and let each request through untouched.
    static func observers(of handler: any ServiceHandler, logger: Logger) -> [any RequestMiddleware] {
        [RequestMetricsMiddleware(handler: handler), RequestLoggingMiddleware(logger: logger)]
    }
}

/// A `WorkerConfiguration` a worker cannot run with.
public struct WorkerConfigurationError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// How many of a process's worker threads each gateway has registered, reported as readiness:
/// ready once every gateway has all of its threads, and a status line naming how many each has
/// while some connect or reconnect. So a worker given a gateway that is down is not ready (it
/// still serves through the others): readiness means every gateway listed can reach the service.
/// The log says `worker ready` each time every thread has become registered: in a worker process,
/// the moment its `/ready` turns 200 (the first time, also when its supervisor hears `READY=1`),
/// never while `/ready` still answers 503. A thread losing its gateway logs that itself.
final class RegistrationCount: Sendable {
    private let service: String
    private let threads: Int
    private let backends: [String]
    private let readiness: ReadinessReporter
    private let logger: Logger
    private let registered: Mutex<(counts: [Int], isReady: Bool)>

    init(service: String, threads: Int, backends: [String], readiness: ReadinessReporter, logger: Logger) {
        self.service = service
        self.threads = threads
        self.backends = backends
        self.readiness = readiness
        self.logger = logger
        registered = Mutex((Array(repeating: 0, count: backends.count), false))
        let gateways = backends.count == 1 ? "the gateway at \(backends[0])" : "the gateways at \(backends.joined(separator: ", "))"
        readiness.notReady("\(service): connecting to \(gateways)")
    }

    /// One thread connected to gateway number `gateway` became registered (true) or lost its
    /// registration (false).
    @Sendable func update(gateway: Int, isRegistered: Bool) {
        // Reported under the lock: two threads registering at once would otherwise report out of
        // order, and a stale "1 of 2" could follow the "2 of 2" that made the process ready.
        registered.withLock { state in
            state.counts[gateway] += isRegistered ? 1 : -1
            let counts = state.counts
            let status: String
            if backends.count == 1 {
                status = "\(service): \(counts[0]) of \(threads) worker threads registered with the gateway at \(backends[0])"
            } else {
                let each = zip(backends, counts).map { "\($1) of \(threads) at \($0)" }.joined(separator: ", ")
                status = "\(service): worker threads registered with \(backends.count) gateways: \(each)"
            }
            let isReady = counts.allSatisfy { $0 == threads }
            if isReady { readiness.ready(status) } else { readiness.notReady(status) }
            if isReady && !state.isReady { logger.info("worker ready", metadata: ["service": "\(service)", "status": "\(status)"]) }
            state.isReady = isReady
        }
    }
}
