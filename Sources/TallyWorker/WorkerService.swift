import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import TallyLifecycle
import ZeroMQ

/// A worker process's long-running part: `concurrency` MDP workers for one service, each on a
/// thread of its own. Stops on graceful shutdown or cancellation; each worker finishes the
/// request in hand and says DISCONNECT.
public struct WorkerService: Service {
    public let handler: any ServiceHandler
    public let configuration: WorkerConfiguration
    /// What every request passes through before its handler: authentication, in a Tally worker.
    private let middleware: [any RequestMiddleware]
    private let context: ZMQContext
    private let logger: Logger
    private let readiness: ReadinessReporter

    /// - Parameters:
    ///   - middleware: the chain in front of every handler; given explicitly, so no worker is
    ///     started without thinking about authentication.
    ///   - readiness: told when every worker thread has heard from the gateway (so the gateway
    ///     counts it), and again whenever one loses the gateway and reconnects.
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
        let stop = WakeupSignal()
        let registrations = RegistrationCount(
            service: handler.serviceName, threads: max(1, configuration.concurrency),
            backend: configuration.backendEndpoint, readiness: readiness)
        let processor = RequestProcessor(
            handler: handler, middleware: middleware, maximumMessageBytes: configuration.maximumMessageBytes, logger: logger)
        logger.info(
            "worker ready",
            metadata: [
                "service": "\(handler.serviceName)", "backend": "\(configuration.backendEndpoint)",
                "concurrency": "\(configuration.concurrency)",
            ])
        try await withGracefulShutdownHandler {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<max(1, configuration.concurrency) {
                    var threadLogger = logger
                    threadLogger[metadataKey: "thread"] = "\(index)"
                    let loggerForThread = threadLogger
                    group.addTask { [context, configuration] in
                        try await DedicatedThread.run(name: "\(processor.handler.serviceName)-worker-\(index)", stoppingWith: stop) {
                            try MajordomoWorker(
                                context: context, configuration: configuration, processor: processor, stop: stop,
                                logger: loggerForThread, onRegistration: registrations.update
                            ).run()
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
}

/// How many of a process's worker threads the gateway has registered, reported as readiness:
/// ready once all are, and a status line naming how many are while some reconnect.
final class RegistrationCount: Sendable {
    private let service: String
    private let threads: Int
    private let backend: String
    private let readiness: ReadinessReporter
    private let registered = Mutex(0)

    init(service: String, threads: Int, backend: String, readiness: ReadinessReporter) {
        self.service = service
        self.threads = threads
        self.backend = backend
        self.readiness = readiness
        readiness.notReady("\(service): connecting to the gateway at \(backend)")
    }

    /// One thread became registered (true) or lost its registration (false).
    @Sendable func update(_ isRegistered: Bool) {
        let count = registered.withLock { count -> Int in
            count += isRegistered ? 1 : -1
            return count
        }
        let status = "\(service): \(count) of \(threads) worker threads registered with the gateway at \(backend)"
        if count == threads { readiness.ready(status) } else { readiness.notReady(status) }
    }
}
