import Foundation
import Logging
import ServiceLifecycle
import TallyLifecycle
import TallyProtocol
import ZeroMQ

/// The gateway process's long-running part: binds the frontend and backend and runs the broker's
/// poll loop on a thread of its own until graceful shutdown or cancellation.
public struct GatewayService: Service {
    public let configuration: GatewayConfiguration
    private let context: ZMQContext
    private let logger: Logger
    private let readiness: ReadinessReporter

    /// - Parameter readiness: told once both sockets are bound, when clients and workers can connect.
    public init(configuration: GatewayConfiguration, context: ZMQContext, logger: Logger, readiness: ReadinessReporter = .none) {
        self.configuration = configuration
        self.context = context
        self.logger = logger
        self.readiness = readiness
    }

    public func run() async throws {
        try await DedicatedThread.runUntilShutdown(name: "gateway") { [configuration, context, logger, readiness] stop in
            let loop = try GatewayLoop(configuration: configuration, context: context, logger: logger, readiness: readiness)
            readiness.ready("gateway serving clients on \(configuration.frontendEndpoint), workers on \(configuration.backendEndpoint)")
            try loop.run(until: stop)
        }
    }
}

/// The sockets, and the loop that feeds the broker: poll, read, let the broker act, repeat.
final class GatewayLoop: BrokerTransport {
    private let frontend: ZMQSocket
    private let backend: ZMQSocket
    private let logger: Logger
    private let readiness: ReadinessReporter
    private var broker: Broker!
    /// Under CURVE, each worker message's connection properties say which services it may serve.
    private let checksWorkerKeys: Bool

    /// Messages read from one socket before looking at the other, so neither side starves.
    private let batch = 256

    init(configuration: GatewayConfiguration, context: ZMQContext, logger: Logger, readiness: ReadinessReporter = .none) throws {
        self.logger = logger
        self.readiness = readiness
        frontend = try ZMQSocket(context: context, type: .router)
        backend = try ZMQSocket(context: context, type: .router)
        for socket in [frontend, backend] { try socket.setRouterMandatory(true) }
        // libzmq's connection heartbeats, answered by the workers' I/O threads even while a long
        // command keeps a worker's own thread busy: a worker whose connection dies is noticed
        // (its next message is refused as unreachable) without waiting for its request's deadline.
        try backend.setConnectionHeartbeat(interval: configuration.heartbeatInterval, timeout: configuration.workerExpiry)
        checksWorkerKeys = configuration.curve != nil
        if let keys = configuration.curve {
            try frontend.serveCurve(CurveServerKeys(keys: keys, domain: CurveRole.client.domain))
            try backend.serveCurve(CurveServerKeys(keys: keys, domain: CurveRole.worker.domain))
        }
        try frontend.setMaxMessageSize(configuration.hardFrameLimit)
        try backend.setMaxMessageSize(configuration.workerFrameLimit)
        try frontend.bind(configuration.frontendEndpoint)
        try backend.bind(configuration.backendEndpoint)
        broker = Broker(configuration: configuration, transport: self, logger: logger)
        let frontendEndpoint = try frontend.lastEndpoint
        let backendEndpoint = try backend.lastEndpoint
        logger.info(
            "gateway ready",
            metadata: [
                "frontend": "\(frontendEndpoint)", "backend": "\(backendEndpoint)",
                "heartbeat_ms": "\(configuration.heartbeatInterval.roundedMilliseconds)",
                "liveness": "\(configuration.liveness)", "curve": "\(configuration.curve != nil)",
            ])
    }

    func run(until stop: WakeupSignal) throws {
        defer {
            frontend.close()
            backend.close()
        }
        var poller = ZMQPoller()
        let frontendIndex = poller.add(frontend)
        let backendIndex = poller.add(backend)
        poller.add(fileDescriptor: stop.fileDescriptor)
        while !stop.isFired {
            try poller.poll(timeout: broker.timeUntilNextTimer())
            if poller.isReadable(backendIndex) { try drainWorkers() }
            if poller.isReadable(frontendIndex) { try drain(frontend, into: broker.handleClient) }
            broker.tick()
        }
        try drainBeforeClosing()
        // The last read, right before the sockets close: what reached the frontend since the
        // drain's last poll is answered too (refused), and late replies from workers passed on.
        try drainWorkers(limit: Self.lastReadLimit)
        try drain(frontend, limit: Self.lastReadLimit, into: broker.handleClient)
        logger.info(
            "gateway stopping",
            metadata: [
                "refused_while_draining": .stringConvertible(broker.refusedWhileDraining),
                "answered_unavailable_at_stop": .stringConvertible(broker.pendingRequests),
            ])
        broker.shutdown()
        // Give the last answers time to leave: closing returns at once, and the context's end waits
        // until libzmq's I/O thread has written them or this runs out. On a loaded machine that
        // thread can wait half a second for a core, and a reply lost here is one the drain served.
        try? frontend.setLinger(milliseconds: 3000)
        try? backend.setLinger(milliseconds: 3000)
    }

    /// Serves the requests already accepted, while refusing new ones, until nothing is owed and
    /// the frontend has been quiet for `drainQuietPeriod`, or `drainTimeout` has passed: a
    /// gateway stopped under load answers what it took on instead of failing it, and answers
    /// what keeps arriving (a burst sent just after SIGTERM, before a load balancer has seen
    /// `/ready` turn 503) in milliseconds instead of leaving its clients to wait out their timeouts.
    ///
    /// The sockets stay bound throughout. `zmq_unbind` would stop new connections, but it also
    /// closes the ones already accepted, and with them every reply queued on them (whatever the
    /// LINGER): no request read after it could be answered at all. Closing the socket keeps the
    /// replies (LINGER) and loses only what arrives after the last read, which follows the
    /// quiet period immediately.
    private func drainBeforeClosing() throws {
        broker.beginDrain()
        readiness.notReady("gateway draining: \(broker.pendingRequests) accepted requests to answer; new ones are refused")
        let clock = ContinuousClock()
        let deadline = clock.now + broker.configuration.drainTimeout
        var lastClientMessage = clock.now
        var poller = ZMQPoller()
        let frontendIndex = poller.add(frontend)
        let backendIndex = poller.add(backend)
        while true {
            let now = clock.now
            let quietUntil = lastClientMessage + broker.configuration.drainQuietPeriod
            guard now < deadline, broker.owesReplies || now < quietUntil else { return }
            var wait = min(broker.timeUntilNextTimer(), deadline - now)
            if !broker.owesReplies { wait = min(wait, quietUntil - now) }
            try poller.poll(timeout: wait)
            if poller.isReadable(backendIndex) { try drainWorkers() }
            if poller.isReadable(frontendIndex) {
                lastClientMessage = clock.now
                try drain(frontend, into: broker.handleClient)
            }
            broker.tick()
        }
    }

    /// The most messages the last read before closing takes from one socket: far more than its
    /// queues hold, so it leaves nothing unread; a bound only so that a flood cannot hold the stop open.
    static let lastReadLimit = 1_000_000

    /// Reads and handles the messages waiting on `socket`, up to `limit` (by default `batch`).
    private func drain(_ socket: ZMQSocket, limit: Int? = nil, into handle: ([Data]) -> Void) throws {
        for _ in 0..<(limit ?? batch) {
            guard let frames = try socket.receive(dontWait: true) else { return }
            handle(frames)
        }
    }

    /// Like `drain`, for the backend: under CURVE with each message's worker permit.
    private func drainWorkers(limit: Int? = nil) throws {
        guard checksWorkerKeys else { return try drain(backend, limit: limit) { broker.handleWorker($0) } }
        for _ in 0..<(limit ?? batch) {
            guard let message = try backend.receive(
                dontWait: true, properties: ["User-Id", Majordomo.workerServicesProperty]) else { return }
            broker.handleWorker(message.frames, permit: WorkerPermit(properties: message.properties))
        }
    }

    func sendToClient(_ frames: [Data]) -> SendOutcome { send(frames, on: frontend) }
    func sendToWorker(_ frames: [Data]) -> SendOutcome { send(frames, on: backend) }

    /// Never blocks: a peer that is gone (`EHOSTUNREACH`) and one that is not reading (`EAGAIN`,
    /// its queue is full) are told apart.
    private func send(_ frames: [Data], on socket: ZMQSocket) -> SendOutcome {
        do {
            return try socket.send(frames, dontWait: true) ? .sent : .full
        } catch let error as ZMQError where error.isHostUnreachable {
            return .gone
        } catch {
            logger.error("send failed", metadata: ["error": "\(error)"])
            return .gone
        }
    }
}
