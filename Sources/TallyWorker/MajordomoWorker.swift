import Foundation
import Logging
import TallyProtocol
import ZeroMQ

/// One 7/MDP worker: a DEALER socket to the gateway's backend, served by the thread that calls
/// `run`, with commands running on a paired `HandlerThread` so heartbeats never stop.
///
/// It follows the guide's `mdwrkapi` and Paranoid Pirate patterns: READY on connect, heartbeats
/// both ways, and when the gateway falls silent for `liveness` heartbeats, a fresh socket after a
/// backoff. On stop it sends DISCONNECT so the gateway forgets it at once instead of by timeout.
final class MajordomoWorker {
    private let context: ZMQContext
    private let configuration: WorkerConfiguration
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
        context: ZMQContext, configuration: WorkerConfiguration, processor: RequestProcessor, stop: WakeupSignal, logger: Logger,
        onRegistration: @escaping @Sendable (Bool) -> Void = { _ in }
    ) {
        self.onRegistration = onRegistration
        self.context = context
        self.configuration = configuration
        self.processor = processor
        self.stop = stop
        self.logger = logger
        self.heartbeatAt = clock.now
        self.reconnectDelay = configuration.initialReconnectDelay
    }

    private var serviceName: String { processor.handler.serviceName }

    /// Serves requests until `stop` fires. Blocks the calling (dedicated) thread.
    func run() throws {
        let handler = try HandlerThread(
            context: context, processor: processor, delay: configuration.handlingDelay, name: "\(serviceName)-handler")
        defer {
            handler.stop()
            closeSocket()
        }
        try connect()
        while !stop.isFired {
            guard let socket else { return }
            var poller = ZMQPoller()
            let socketIndex = poller.add(socket)
            let handlerIndex = poller.add(handler.socket)
            poller.add(fileDescriptor: stop.fileDescriptor)
            try poller.poll(timeout: max(.zero, heartbeatAt - clock.now))

            if poller.isReadable(handlerIndex), let finished = try handler.takeReply() {
                try send(Majordomo.WorkerMessage.reply(client: finished.client, body: [finished.reply]).frames)
            }
            if stop.isFired { break }
            if poller.isReadable(socketIndex) {
                while let frames = try socket.receive(dontWait: true) {
                    liveness = configuration.liveness
                    if try !handle(frames, handler: handler) { break }
                }
            } else if clock.now >= heartbeatAt {
                liveness -= 1
                // A request in hand is finished and answered before reconnecting: a fresh READY
                // would invite a second request while this worker is still busy.
                if liveness <= 0 && !handler.isBusy {
                    logger.warning("gateway silent; reconnecting", metadata: ["after": "\(reconnectDelay)"])
                    closeSocket()
                    if waitForStop(reconnectDelay) { return }
                    reconnectDelay = min(reconnectDelay * 2, configuration.maximumReconnectDelay)
                    try connect()
                    continue
                }
            }
            if clock.now >= heartbeatAt {
                try send(Majordomo.WorkerMessage.heartbeat.frames)
                heartbeatAt = clock.now + configuration.heartbeatInterval
            }
        }
        // Graceful: finish and answer the request in hand, then tell the gateway we are leaving.
        // LINGER gives the last messages time to go out.
        if let finished = try handler.finish() {
            try send(Majordomo.WorkerMessage.reply(client: finished.client, body: [finished.reply]).frames)
        }
        if let socket {
            try? socket.setLinger(milliseconds: 1000)
            _ = try? socket.send(Majordomo.WorkerMessage.disconnect.frames, dontWait: true)
        }
    }

    /// Handles one message from the gateway. Returns false when the socket was replaced.
    private func handle(_ frames: [Data], handler: HandlerThread) throws -> Bool {
        switch Majordomo.BrokerMessage(frames: frames) {
        case .request(let client, let body)?:
            reconnectDelay = configuration.initialReconnectDelay
            isRegistered = true
            if handler.isBusy {
                // 7/MDP sends one request at a time; a broker that sends more gets told, not ignored.
                let busy = Reply.failure(id: nil, error: TallyError(.unavailable, "this \(serviceName) worker is busy; retry"))
                try send(Majordomo.WorkerMessage.reply(client: client, body: [busy]).frames)
            } else {
                try handler.submit(client: client, body: body)
            }
        case .heartbeat?:
            reconnectDelay = configuration.initialReconnectDelay
            isRegistered = true
        case .disconnect?:
            logger.info("gateway asked us to reconnect", metadata: ["after": "\(reconnectDelay)"])
            if let finished = try handler.finish() {
                try send(Majordomo.WorkerMessage.reply(client: finished.client, body: [finished.reply]).frames)
            }
            closeSocket()
            // Back off, so a gateway that keeps refusing us (a reserved service name) is not hammered.
            if waitForStop(reconnectDelay) { return false }
            reconnectDelay = min(reconnectDelay * 2, configuration.maximumReconnectDelay)
            try connect()
            return false
        case nil:
            logger.warning("ignored a malformed message from the gateway", metadata: ["frames": "\(frames.count)"])
        }
        return true
    }

    private func connect() throws {
        let socket = try ZMQSocket(context: context, type: .dealer)
        try socket.connect(configuration.backendEndpoint)
        self.socket = socket
        try send(Majordomo.WorkerMessage.ready(service: serviceName).frames)
        liveness = configuration.liveness
        heartbeatAt = clock.now + configuration.heartbeatInterval
        logger.debug("connected", metadata: ["backend": "\(configuration.backendEndpoint)"])
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
