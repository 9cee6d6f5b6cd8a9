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
/// `bind` opens the port before the process's other services start, so it listens before the
/// process says it is ready: whoever waits for that (a supervisor, `tally up`, a test) can ask
/// `/ready` at once, and a port already in use stops the process before it serves anything.
/// As a service of the process's group it then serves until the group's graceful shutdown reaches
/// it; `runServices` puts it first so that it is stopped last, and `/ready` answers 503 for as
/// long as the other services drain.
public struct MetricsEndpoint: Service {
    public let address: HTTPAddress
    private let listener: any Channel

    private init(address: HTTPAddress, listener: any Channel) {
        self.address = address
        self.listener = listener
    }

    /// Listens on `address` and answers from `registry` and `readiness` on NIO's event loops.
    public static func bind(
        _ address: HTTPAddress, registry: PrometheusCollectorRegistry, readiness: ReadinessNotifier = .shared, logger: Logger
    ) async throws -> MetricsEndpoint {
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
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
        let listener: any Channel
        do {
            listener = try await bootstrap.bind(host: address.bindHost, port: address.port).get()
        } catch {
            throw BindFailure(address: address, reason: error)
        }
        logger.info("serving /metrics and /ready", metadata: ["address": "\(address)"])
        return MetricsEndpoint(address: address, listener: listener)
    }

    public func run() async throws {
        // Serves until the group's graceful shutdown (or cancellation) reaches this service.
        try? await gracefulShutdown()
        try? await listener.close()
    }
}

extension MetricsEndpoint {
    /// The endpoint's port could not be opened (taken, or a host that is not this machine's).
    public struct BindFailure: Error, CustomStringConvertible {
        public let address: HTTPAddress
        public let reason: any Error

        public var description: String { "cannot serve /metrics and /ready on \(address) (--metrics, TALLY_METRICS_ADDRESS): \(reason)" }
    }
}
