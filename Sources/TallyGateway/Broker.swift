import DequeModule
import Foundation
import HeapModule
import Logging
import TallyProtocol

/// How the broker puts frames on the wire. Returns false when the peer cannot be reached
/// (gone, or not reading), so the broker can act on it rather than lose the message silently.
protocol BrokerTransport: AnyObject {
    func sendToClient(_ frames: [Data]) -> Bool
    func sendToWorker(_ frames: [Data]) -> Bool
}

/// The gateway's state machine, after the ZeroMQ guide's `mdbroker`: services with queues of
/// requests and idle workers, heartbeats both ways, and deadlines.
///
/// Unlike the reference broker it never drops a request silently: every accepted request is
/// answered by a worker's reply or by the gateway (`unavailable`, `deadline_exceeded`), and a
/// request whose worker dies is sent to another worker when that is safe.
///
/// Single-threaded: only the gateway's socket thread calls it.
final class Broker {
    let configuration: GatewayConfiguration
    unowned let transport: any BrokerTransport
    let logger: Logger
    let clock = ContinuousClock()
    let startedAt: ContinuousClock.Instant

    private(set) var services: [String: ServiceRecord] = [:]
    private(set) var workers: [Data: WorkerRecord] = [:]
    private var requests: [UInt64: PendingRequest] = [:]
    private var deadlines = Heap<DeadlineEntry>()
    private var nextRequestID: UInt64 = 1
    private var heartbeatAt: ContinuousClock.Instant

    init(configuration: GatewayConfiguration, transport: any BrokerTransport, logger: Logger) {
        self.configuration = configuration
        self.transport = transport
        self.logger = logger
        startedAt = clock.now
        heartbeatAt = startedAt + configuration.heartbeatInterval
        for name in configuration.catalog.workerServices { services[name] = ServiceRecord(name: name) }
    }

    // MARK: Clients

    /// A message from the frontend, identity frame first.
    func handleClient(_ frames: [Data]) {
        switch ClientRequest(frames: frames) {
        case .malformed(let address, let reason):
            guard let address else { return }
            reply(to: address, id: nil, body: Reply.failure(id: nil, error: .invalidArgument(reason)))
        case .plain(let address, let body):
            guard checkSize(body.count, address) else { return }
            accept(body, from: address, service: nil)
        case .majordomo(let address, let service, let body):
            guard checkSize(body.reduce(0) { $0 + $1.count }, address) else { return }
            if service.hasPrefix("mmi.") && body.first?.first != UInt8(ascii: "{") {
                // 8/MMI as the guide's clients speak it: the body is a bare service name.
                reply(to: address, id: nil, body: Data(mmiCode(service: service, asking: body.first.map { String(decoding: $0, as: UTF8.self) }).utf8))
                return
            }
            guard body.count == 1 else {
                reply(to: address, id: nil, body: Reply.failure(id: nil, error: .invalidArgument(
                    "a 7/MDP request to Tally carries one body frame, the JSON envelope; got \(body.count)")))
                return
            }
            accept(body[0], from: address, service: service)
        }
    }

    private func checkSize(_ size: Int, _ address: ClientAddress) -> Bool {
        guard size > configuration.maximumMessageBytes else { return true }
        reply(to: address, id: nil, body: Reply.failure(id: nil, error: TallyError(
            .resourceExhausted,
            "the request is \(size) bytes; the gateway accepts at most \(configuration.maximumMessageBytes)")))
        return false
    }

    /// Routes a request by its envelope: gateway commands are answered here, the rest are queued
    /// for a worker of their service.
    private func accept(_ body: Data, from address: ClientAddress, service frameService: String?) {
        let head: EnvelopeHead
        do {
            head = try EnvelopeHead.decode(body)
        } catch {
            let id = EnvelopeHead.recoverID(from: body)
            reply(to: address, id: id, body: Reply.failure(id: id, error: error))
            return
        }
        let service = String(head.service)
        // A 7/MDP client names the service in a frame; 8/MMI names the whole command there (`mmi.service`).
        if let frameService, frameService != service && frameService != head.command {
            reply(to: address, id: head.id, body: Reply.failure(id: head.id, error: .invalidArgument(
                "command '\(head.command)' belongs to service '\(service)' but was sent to service '\(frameService)'",
                field: "command")))
            return
        }
        if CommandCatalog.gatewayServices.contains(service) {
            reply(to: address, id: head.id, body: answerGatewayCommand(body, head: head))
            return
        }
        guard services[service] != nil else {
            let known = services.keys.sorted().joined(separator: ", ")
            reply(to: address, id: head.id, body: Reply.failure(id: head.id, error: TallyError(
                .unimplemented, "there is no service '\(service)'; this gateway serves \(known), system and mmi",
                field: "command")))
            return
        }
        guard services[service]!.queue.count < configuration.maximumQueueDepth else {
            reply(to: address, id: head.id, body: Reply.failure(id: head.id, error: TallyError(
                .resourceExhausted,
                "\(configuration.maximumQueueDepth) \(service) requests are already waiting for a worker; retry later")))
            services[service]!.record(error: true)
            return
        }
        let now = clock.now
        let timeout = head.deadlineMilliseconds.map { Duration.milliseconds($0) } ?? configuration.defaultDeadline
        let request = PendingRequest(
            id: nextRequestID, client: address, envelopeID: head.id, command: head.command, service: service,
            body: body, acceptedAt: now, timeout: timeout,
            retrySafe: configuration.catalog.isSafeToRetry(command: head.command, idempotencyKey: head.idempotencyKey))
        nextRequestID += 1
        requests[request.id] = request
        deadlines.insert(DeadlineEntry(deadline: request.deadline, request: request.id))
        services[service]!.queue.append(request.id)
        dispatch(service)
    }

    // MARK: Workers

    /// A message from the backend, identity frame first.
    func handleWorker(_ frames: [Data]) {
        guard frames.count >= 2, let identity = frames.first else { return }
        guard let message = Majordomo.WorkerMessage(frames: frames[1...]) else {
            logger.warning("malformed message on the worker socket", metadata: ["frames": "\(frames.count - 1)"])
            if workers[identity] != nil { removeWorker(identity, reason: "sent a malformed message", notify: true) }
            return
        }
        let now = clock.now
        workers[identity]?.expiry = now + configuration.workerExpiry
        switch message {
        case .ready(let service):
            guard workers[identity] == nil else {
                removeWorker(identity, reason: "sent READY twice", notify: true)
                return
            }
            guard !CommandCatalog.gatewayServices.contains(service), Envelope.isWellFormedCommand("\(service).x") else {
                logger.warning("refused a worker for a reserved or malformed service name", metadata: ["service": "\(service)"])
                _ = transport.sendToWorker([identity] + Majordomo.BrokerMessage.disconnect.frames)
                return
            }
            workers[identity] = WorkerRecord(identity: identity, service: service, expiry: now + configuration.workerExpiry)
            services[service, default: ServiceRecord(name: service)].liveWorkers += 1
            services[service]!.idle.append(identity)
            logger.info("worker joined", metadata: ["service": "\(service)", "workers": "\(services[service]!.liveWorkers)"])
            dispatch(service)
            // Acknowledge at once (any broker message says "registered"), so the worker can report
            // itself ready now instead of at the next heartbeat.
            if workers[identity]?.request == nil {
                _ = transport.sendToWorker([identity] + Majordomo.BrokerMessage.heartbeat.frames)
            }
        case .reply(let client, let body):
            guard var worker = workers[identity] else {
                _ = transport.sendToWorker([identity] + Majordomo.BrokerMessage.disconnect.frames)
                return
            }
            if let id = PendingRequest.id(fromToken: client), worker.request == id,
                let request = requests.removeValue(forKey: id)
            {
                reply(to: request.client, id: request.envelopeID, frames: body)
                let handling = now - (request.dispatchedAt ?? now)
                services[worker.service]!.record(served: handling, error: body.first.map(Broker.isErrorReply) ?? true)
            } else {
                logger.debug("dropped a reply for a request already answered", metadata: ["service": "\(worker.service)"])
            }
            worker.request = nil
            workers[identity] = worker
            services[worker.service]!.idle.append(identity)
            dispatch(worker.service)
        case .heartbeat:
            if workers[identity] == nil {
                // A worker we do not know (we restarted, or expired it): make it reconnect and READY again.
                _ = transport.sendToWorker([identity] + Majordomo.BrokerMessage.disconnect.frames)
            }
        case .disconnect:
            removeWorker(identity, reason: "disconnected", notify: false)
        }
    }

    /// Sends queued requests of `serviceName` to its idle workers, least recently used first.
    private func dispatch(_ serviceName: String) {
        let now = clock.now
        while let requestID = services[serviceName]?.queue.first {
            guard var request = requests[requestID] else {
                services[serviceName]!.queue.removeFirst()  // answered already (deadline)
                continue
            }
            guard let identity = services[serviceName]!.idle.popFirst() else { return }
            guard var worker = workers[identity], worker.request == nil else { continue }
            let frames = [identity] + Majordomo.BrokerMessage.request(client: request.token, body: [request.body]).frames
            guard transport.sendToWorker(frames) else {
                removeWorker(identity, reason: "unreachable", notify: false)
                continue
            }
            services[serviceName]!.queue.removeFirst()
            request.worker = identity
            request.dispatchedAt = now
            request.attempts += 1
            requests[requestID] = request
            worker.request = requestID
            workers[identity] = worker
        }
    }

    /// Forgets a worker. A request it held goes to another worker when safe, else is answered
    /// `unavailable`: never dropped.
    private func removeWorker(_ identity: Data, reason: String, notify: Bool) {
        guard let worker = workers.removeValue(forKey: identity) else { return }
        if notify { _ = transport.sendToWorker([identity] + Majordomo.BrokerMessage.disconnect.frames) }
        services[worker.service]!.liveWorkers -= 1
        services[worker.service]!.idle.removeAll { $0 == identity }
        logger.info("worker left", metadata: ["service": "\(worker.service)", "reason": "\(reason)"])
        if let requestID = worker.request, var request = requests[requestID] {
            request.worker = nil
            request.dispatchedAt = nil
            if request.retrySafe && request.attempts < configuration.maximumAttempts {
                logger.warning("re-dispatching a request whose worker left", metadata: ["command": "\(request.command)"])
                requests[requestID] = request
                services[worker.service]!.queue.prepend(requestID)
            } else {
                requests[requestID] = nil
                let why = request.retrySafe
                    ? "\(request.attempts) \(worker.service) workers in a row stopped while running \(request.command)"
                    : "the \(worker.service) worker running \(request.command) stopped before answering; it was not retried because it changes state and carried no idempotency_key"
                fail(request, TallyError(.unavailable, why))
            }
        }
        dispatch(worker.service)
    }

    // MARK: Timers

    /// How long the poll may sleep before the next heartbeat or deadline is due.
    func timeUntilNextTimer() -> Duration {
        var next = heartbeatAt
        if let first = deadlines.min, first.deadline < next { next = first.deadline }
        return max(.zero, next - clock.now)
    }

    /// Answers requests past their deadline, expires silent workers and sends heartbeats.
    func tick() {
        let now = clock.now
        while let first = deadlines.min, first.deadline <= now {
            deadlines.removeMin()
            guard let request = requests.removeValue(forKey: first.request) else { continue }
            let ms = request.timeout.roundedMilliseconds
            if request.worker == nil {
                services[request.service]!.queue.removeAll { $0 == request.id }
                let live = services[request.service]!.liveWorkers
                fail(request, live == 0
                    ? TallyError(.unavailable, "no \(request.service) worker is connected; none became available within \(ms) ms")
                    : TallyError(.deadlineExceeded, "all \(live) \(request.service) workers stayed busy for \(ms) ms"))
            } else {
                fail(request, TallyError(.deadlineExceeded, "\(request.command) did not finish within \(ms) ms"))
            }
        }
        guard now >= heartbeatAt else { return }
        for (identity, worker) in workers where worker.expiry <= now {
            removeWorker(identity, reason: "missed \(configuration.liveness) heartbeats", notify: false)
        }
        for identity in Array(workers.keys) where !transport.sendToWorker([identity] + Majordomo.BrokerMessage.heartbeat.frames) {
            removeWorker(identity, reason: "unreachable", notify: false)
        }
        heartbeatAt = now + configuration.heartbeatInterval
    }

    /// Answers everything still pending and tells workers to go, before the gateway stops.
    func shutdown() {
        for request in requests.values {
            fail(request, TallyError(.unavailable, "the gateway is shutting down; retry shortly"))
        }
        requests.removeAll()
        for identity in workers.keys {
            _ = transport.sendToWorker([identity] + Majordomo.BrokerMessage.disconnect.frames)
        }
    }

    // MARK: Replies

    private func fail(_ request: PendingRequest, _ error: TallyError) {
        services[request.service]?.record(error: true)
        reply(to: request.client, id: request.envelopeID, body: Reply.failure(id: request.envelopeID, error: error))
    }

    private func reply(to address: ClientAddress, id: String?, body: Data) {
        reply(to: address, id: id, frames: [body])
    }

    private func reply(to address: ClientAddress, id: String?, frames body: [Data]) {
        if !transport.sendToClient(address.frames(body)) {
            logger.debug("client gone before its reply", metadata: ["id": "\(id ?? "-")"])
        }
    }

    private static let okKey = Data(#""ok""#.utf8)

    /// Whether a reply says `"ok": false`, without decoding it. The first `"ok"` followed by a colon
    /// is the top-level key in the replies Tally writes (the id before it is a string, where quotes
    /// are escaped); replies from other workers may put spaces around the colon.
    static func isErrorReply(_ body: Data) -> Bool {
        var searchFrom = body.startIndex
        while let range = body.range(of: okKey, in: searchFrom..<body.endIndex) {
            var index = range.upperBound
            func skipSpaces() {
                while index < body.endIndex, [0x20, 0x09, 0x0a, 0x0d].contains(body[index]) { index += 1 }
            }
            skipSpaces()
            if index < body.endIndex, body[index] == UInt8(ascii: ":") {
                index += 1
                skipSpaces()
                return index < body.endIndex && body[index] == UInt8(ascii: "f")
            }
            searchFrom = range.upperBound
        }
        return false
    }
}

extension ServiceRecord {
    mutating func record(served handling: Duration, error: Bool) {
        served += 1
        handled += 1
        handlingTime += handling
        if error { errors += 1 }
    }

    mutating func record(error: Bool) {
        if error { errors += 1 }
    }
}

extension Duration {
    var roundedMilliseconds: Int {
        let (seconds, attoseconds) = components
        return Int(seconds * 1000 + (attoseconds + 500_000_000_000_000) / 1_000_000_000_000_000)
    }
}
