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
/// socket after a backoff. On stop it sends DISCONNECT so the gateway forgets it at once.
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
                var requests: [(client: Data, body: [Data])] = []
                while let frames = try socket.receive(dontWait: true) {
                    liveness = configuration.liveness
                    if case .request(let client, let body)? = Majordomo.BrokerMessage(frames: frames) {
                        reconnectDelay = configuration.initialReconnectDelay
                        isRegistered = true
                        requests.append((client, body))
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
        // Graceful: answer the requests that have already arrived, then tell the gateway we are
        // leaving (one that arrives after this is the gateway's to send elsewhere or answer).
        // LINGER gives the last messages time to go out.
        if let socket {
            var requests: [(client: Data, body: [Data])] = []
            while let frames = try socket.receive(dontWait: true) {
                if case .request(let client, let body)? = Majordomo.BrokerMessage(frames: frames) { requests.append((client, body)) }
            }
            try answer(requests)
            try? socket.setLinger(milliseconds: 1000)
            _ = try? socket.send(Majordomo.WorkerMessage.disconnect.frames, dontWait: true)
        }
    }

    /// Handles one message from the gateway other than a request (those are gathered and
    /// answered together, see `answer(_:)`). Returns false when the socket was replaced.
    private func handle(_ frames: [Data]) throws -> Bool {
        switch Majordomo.BrokerMessage(frames: frames) {
        case .request?:
            break  // answered already
        case .heartbeat?:
            reconnectDelay = configuration.initialReconnectDelay
            isRegistered = true
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
    private func answer(_ requests: [(client: Data, body: [Data])]) throws {
        guard !requests.isEmpty else { return }
        try processor.process(requests.map(\.body)) { index, reply in
            try send(Majordomo.WorkerMessage.reply(client: requests[index].client, body: [reply]).frames)
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
        try send(Majordomo.WorkerMessage.ready(service: serviceName, capacity: configuration.capacity).frames)
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
    }

    /// Sleeps for `delay` unless asked to stop first; returns whether it was asked to stop.
    private func waitForStop(_ delay: Duration) -> Bool {
        var poller = ZMQPoller()
        poller.add(fileDescriptor: stop.fileDescriptor)
        _ = try? poller.poll(timeout: delay)
        return stop.isFired
    }
}
