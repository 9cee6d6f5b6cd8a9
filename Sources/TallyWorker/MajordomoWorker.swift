import Foundation
import Logging
import TallyProtocol
import ZeroMQ

/// One 7/MDP worker: a DEALER socket to the gateway's backend, and the thread that calls `run`,
/// which reads each request, runs it and sends the reply itself: no hand-off to another thread
/// and back, which would cost two thread wake-ups on every request.
///
/// It takes `capacity` requests at once (Tally's extension of READY, see `Majordomo.WorkerMessage`):
/// while it runs one, the gateway can already send it the next, so the thread goes from request to
/// request without waiting a round trip to the gateway in between, and one wake-up and one system
/// call carry several requests. They run in the order they arrive; a slow one delays those behind it.
/// The requests that one wake-up finds are handed to the processor together, so that a stateful
/// service's changes among them share one transaction and one commit (`RequestProcessor.process(_:answer:)`).
///
/// A command that runs longer than a heartbeat does not get the worker taken for dead: the
/// gateway does not expire a worker while it holds a request whose deadline has not passed, and
/// libzmq's own connection heartbeats (ZMTP PING/PONG, answered by its I/O thread while this
/// thread is busy) still tell a dead connection from a busy one.
///
/// Otherwise it follows the guide's `mdwrkapi` and Paranoid Pirate patterns: READY on connect,
/// heartbeats both ways, and when the gateway falls silent for `liveness` heartbeats, a fresh
/// socket after a backoff. On stop it leaves without losing a request the gateway sent it in the
/// meantime: DISCONNECT with Tally's `drain` frame, answering what still arrives until the gateway
/// acknowledges (`leave()`).
final class MajordomoWorker {
    private let context: ZMQContext
    private let configuration: WorkerConfiguration
    /// The one gateway backend this worker connects to (a process may have workers on several).
    private let endpoint: String
    private let processor: RequestProcessor
    private let stop: WakeupSignal
    private var logger: Logger
    private let clock = ContinuousClock()
    private let onRegistration: @Sendable (Bool) -> Void
    /// Whether the gateway has spoken to the current socket since its READY: it only heartbeats
    /// and sends requests to workers it has registered.
    /// Whether the gateway on this socket asked for each reply's outcome (Tally's `welcome`).
    private var gatewayTakesOutcomes = false
    private var isRegistered = false {
        didSet { if isRegistered != oldValue { onRegistration(isRegistered) } }
    }

    private var socket: ZMQSocket?
    private var liveness = 0
    private var heartbeatAt: ContinuousClock.Instant
    private var reconnectDelay: Duration

    init(
        context: ZMQContext, configuration: WorkerConfiguration, endpoint: String, processor: RequestProcessor,
        stop: WakeupSignal, logger: Logger, onRegistration: @escaping @Sendable (Bool) -> Void = { _ in }
    ) {
        self.onRegistration = onRegistration
        self.context = context
        self.configuration = configuration
        self.endpoint = endpoint
        self.processor = processor
        self.stop = stop
        self.logger = logger
        self.heartbeatAt = clock.now
        self.reconnectDelay = configuration.initialReconnectDelay
    }

    private var serviceName: String { processor.handler.serviceName }

    /// Serves requests until `stop` fires. Blocks the calling (dedicated) thread.
    func run() throws {
        defer { closeSocket() }
        try connect()
        while !stop.isFired {
            guard let socket else { return }
            var poller = ZMQPoller()
            let socketIndex = poller.add(socket)
            poller.add(fileDescriptor: stop.fileDescriptor)
            try poller.poll(timeout: max(.zero, heartbeatAt - clock.now))
            if stop.isFired { break }
            if poller.isReadable(socketIndex) {
                var requests: [(client: Data, traceparent: Data?, body: [Data])] = []
                while let frames = try socket.receive(dontWait: true) {
                    liveness = configuration.liveness
                    if case .request(let client, let traceparent, let body)? = Majordomo.BrokerMessage(frames: frames) {
                        reconnectDelay = configuration.initialReconnectDelay
                        isRegistered = true
                        requests.append((client, traceparent, body))
                        if requests.count < configuration.capacity { continue }
                    }
                    // The requests in hand are answered before anything else is done.
                    try answer(requests)
                    requests = []
                    if try !handle(frames) { break }
                    // Graceful stop between requests: the ones in hand have been answered.
                    if stop.isFired { break }
                }
                try answer(requests)
            } else if clock.now >= heartbeatAt {
                liveness -= 1
                if liveness <= 0 {
                    logger.warning("gateway silent; reconnecting", metadata: ["after": "\(reconnectDelay)"])
                    if try !reconnectAfterBackoff() { return }
                    continue
                }
            }
            if clock.now >= heartbeatAt {
                try send(Majordomo.WorkerMessage.heartbeat.frames)
                heartbeatAt = clock.now + configuration.heartbeatInterval
            }
        }
        try leave()
    }

    /// Leaves the gateway without losing a request it sent as this worker decided to stop: first
    /// answers what has already arrived; then, registered, says DISCONNECT with Tally's `drain`
    /// frame and goes on answering every REQUEST that reaches it until the gateway acknowledges
    /// with a DISCONNECT, the last message the gateway sends it, so nothing can still be on its
    /// way. A gateway silent for heartbeat × liveness (gone, or a plain 7/MDP broker that sends no
    /// acknowledgement) is left then, as a silent gateway is left while serving.
    ///
    /// A worker the gateway has not spoken to on this socket (it is reconnecting, or the gateway
    /// is down) says a plain DISCONNECT and goes at once: waiting for an acknowledgement from a
    /// gateway that is not there would only hold up the stop. LINGER gives the last messages
    /// time to go out after the socket closes.
    private func leave() throws {
        guard let socket else { return }
        try? socket.setLinger(milliseconds: 1000)
        let before = try answerWhatArrived(on: socket)
        guard before != .disconnect, isRegistered || before == .messages else {
            _ = try? socket.send(Majordomo.WorkerMessage.disconnect.frames, dontWait: true)
            return
        }
        try send(Majordomo.WorkerMessage.drain.frames)
        let silence = configuration.heartbeatInterval * configuration.liveness
        var heardAt = clock.now
        var poller = ZMQPoller()
        let socketIndex = poller.add(socket)
        while clock.now < heardAt + silence {
            try poller.poll(timeout: heardAt + silence - clock.now)
            guard poller.isReadable(socketIndex) else { continue }
            heardAt = clock.now
            if try answerWhatArrived(on: socket) == .disconnect { return }
        }
        logger.warning(
            "the gateway did not acknowledge this worker's leaving; closing anyway",
            metadata: ["waited_ms": "\(silence.roundedUpMilliseconds)"])
    }

    /// What a read while leaving found from the gateway.
    private enum Heard {
        case nothing
        /// Requests or heartbeats: the gateway knows this worker.
        case messages
        /// DISCONNECT, the last message the gateway sends this worker.
        case disconnect
    }

    /// Reads every message waiting on `socket` and answers the requests among them (after the
    /// rest of the read, together, as `run` does); stops at a DISCONNECT.
    private func answerWhatArrived(on socket: ZMQSocket) throws -> Heard {
        var requests: [(client: Data, traceparent: Data?, body: [Data])] = []
        var heard = Heard.nothing
        while heard != .disconnect, let frames = try socket.receive(dontWait: true) {
            switch Majordomo.BrokerMessage(frames: frames) {
            case .request(let client, let traceparent, let body)?:
                requests.append((client, traceparent, body))
                heard = .messages
            case .heartbeat?: heard = .messages
            case .welcome?:
                gatewayTakesOutcomes = true
                heard = .messages
            case .disconnect?: heard = .disconnect
            case nil: logger.warning("ignored a malformed message from the gateway", metadata: ["frames": "\(frames.count)"])
            }
        }
        try answer(requests)
        return heard
    }

    /// Handles one message from the gateway other than a request (those are gathered and
    /// answered together, see `answer(_:)`). Returns false when the socket was replaced.
    private func handle(_ frames: [Data]) throws -> Bool {
        switch Majordomo.BrokerMessage(frames: frames) {
        case .request?:
            break  // answered already
        case .heartbeat?, .welcome?:
            reconnectDelay = configuration.initialReconnectDelay
            isRegistered = true
            if case .welcome? = Majordomo.BrokerMessage(frames: frames) { gatewayTakesOutcomes = true }
        case .disconnect?:
            logger.info("gateway asked us to reconnect", metadata: ["after": "\(reconnectDelay)"])
            // Back off, so a gateway that keeps refusing us (a reserved service name) is not hammered.
            _ = try reconnectAfterBackoff()
            return false
        case nil:
            logger.warning("ignored a malformed message from the gateway", metadata: ["frames": .stringConvertible(frames.count)])
        }
        return true
    }

    /// Runs requests that arrived together and sends each reply as soon as it is ready (a change's
    /// after the commit that holds it: see `RequestProcessor.process(_:answer:)`).
    private func answer(_ requests: [(client: Data, traceparent: Data?, body: [Data])]) throws {
        guard !requests.isEmpty else { return }
        let withOutcome = gatewayTakesOutcomes
        // Only a traced gateway sends trace context: otherwise no second array is made.
        let traceparents = requests.contains { $0.traceparent != nil } ? requests.map(\.traceparent) : []
        try processor.process(requests.map(\.body), traceparents: traceparents) { index, reply, error in
            let client = requests[index].client
            try send(
                withOutcome
                    ? Majordomo.WorkerMessage.replyWithOutcome(client: client, outcome: error?.rawValue ?? "ok", body: [reply]).frames
                    : Majordomo.WorkerMessage.reply(client: client, body: [reply]).frames)
        }
    }

    /// Closes the socket, waits `reconnectDelay` (doubling it for next time) and connects afresh.
    /// Returns false when asked to stop while waiting.
    private func reconnectAfterBackoff() throws -> Bool {
        closeSocket()
        if waitForStop(reconnectDelay) { return false }
        reconnectDelay = min(reconnectDelay * 2, configuration.maximumReconnectDelay)
        try connect()
        return true
    }

    private func connect() throws {
        let socket = try ZMQSocket(context: context, type: .dealer)
        // libzmq's connection heartbeats run on its I/O thread, so they go on while a long command
        // keeps this thread busy; a connection that stops answering them is dropped.
        try socket.setConnectionHeartbeat(
            interval: configuration.heartbeatInterval, timeout: configuration.heartbeatInterval * configuration.liveness)
        if let curve = configuration.curve { try socket.useCurve(curve) }
        try socket.connect(endpoint)
        self.socket = socket
        try send(Majordomo.WorkerMessage.ready(service: serviceName, capacity: configuration.capacity, takesTraceContext: true).frames)
        liveness = configuration.liveness
        heartbeatAt = clock.now + configuration.heartbeatInterval
        logger.debug("connected", metadata: ["backend": "\(endpoint)"])
    }

    private func send(_ frames: [Data]) throws {
        // A DEALER only blocks when its queue is full (the gateway is gone); never wait on that.
        _ = try socket?.send(frames, dontWait: true)
    }

    private func closeSocket() {
        socket?.close()
        socket = nil
        isRegistered = false
        gatewayTakesOutcomes = false
    }

    /// Sleeps for `delay` unless asked to stop first; returns whether it was asked to stop.
    private func waitForStop(_ delay: Duration) -> Bool {
        var poller = ZMQPoller()
        poller.add(fileDescriptor: stop.fileDescriptor)
        _ = try? poller.poll(timeout: delay)
        return stop.isFired
    }
}
