import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import Prometheus
import ServiceLifecycle
import TallyLifecycle

/// The process's HTTP endpoint for operators: `GET /metrics` (Prometheus' text format) and
/// `GET /ready` (200 while the process is ready and not stopping, as `ReadinessNotifier` knows it; else 503).
///
/// A small SwiftNIO HTTP/1.1 server (NIOPosix + NIOHTTP1, in the build already through the
/// PostgreSQL driver) on NIO's shared event loops, never on the Swift concurrency pool's threads
/// for socket work. Each connection gets one answer (`OperatorHTTPResponder`) and is closed.
///
/// As a service of the process's group it serves until the group's graceful shutdown reaches
/// it; `runServices` puts it first so that it is stopped last, and `/ready` answers 503 for as
/// long as the other services drain.
public struct MetricsEndpoint: Service {
    public let address: HTTPAddress
    private let registry: PrometheusCollectorRegistry
    private let readiness: ReadinessNotifier
    private let logger: Logger

    public init(
        address: HTTPAddress, registry: PrometheusCollectorRegistry, readiness: ReadinessNotifier = .shared, logger: Logger
    ) {
        self.address = address
        self.registry = registry
        self.readiness = readiness
        self.logger = logger
    }

    public func run() async throws {
        let (registry, readiness) = (registry, readiness)
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers(
                        RequestHeadLimit(),
                        ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes)),
                        HTTPResponseEncoder(),
                        OperatorHTTPResponder(registry: registry, readiness: readiness))
                }
            }
            .bind(host: address.bindHost, port: address.port).get()
        logger.info("serving /metrics and /ready", metadata: ["address": "\(address)"])
        // Serves until the group's graceful shutdown (or cancellation) reaches this service.
        try? await gracefulShutdown()
        try? await listener.close()
    }
}
