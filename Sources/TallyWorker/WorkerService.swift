import Foundation
import Logging
import ServiceLifecycle
import ZeroMQ

/// A worker process's long-running part: `concurrency` MDP workers for one service, each on a
/// thread of its own. Stops on graceful shutdown or cancellation; each worker finishes the
/// request in hand and says DISCONNECT.
public struct WorkerService: Service {
    public let handler: any ServiceHandler
    public let configuration: WorkerConfiguration
    private let context: ZMQContext
    private let logger: Logger

    public init(handler: any ServiceHandler, configuration: WorkerConfiguration, context: ZMQContext, logger: Logger) {
        self.handler = handler
        self.configuration = configuration
        self.context = context
        self.logger = logger
    }

    public func run() async throws {
        let stop = WakeupSignal()
        let processor = RequestProcessor(
            handler: handler, maximumMessageBytes: configuration.maximumMessageBytes, logger: logger)
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
                                logger: loggerForThread
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
