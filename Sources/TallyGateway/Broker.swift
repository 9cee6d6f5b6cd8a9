import DequeModule
import Foundation
import Logging
import Metrics
import TallyProtocol
import TallyTracing
import Tracing

/// How the broker puts frames on the wire, never waiting: a full peer and a gone one are told
/// apart, so the broker can hold a reply for the first and act on the second.
protocol BrokerTransport: AnyObject {
    func sendToClient(_ frames: [Data]) -> SendOutcome
    func sendToWorker(_ frames: [Data]) -> SendOutcome
}

/// The gateway's state machine, after the ZeroMQ guide's `mdbroker`: services with queues of
/// requests and workers with room for them, heartbeats both ways, and deadlines. It routes on frames: the
/// service is named by a 7/MDP frame or by the envelope's command, request bodies go to workers
/// as the client sent them, and replies go back as the worker sent them.
///
/// Unlike the reference broker it never drops a request silently: every accepted request is
/// answered exactly once, by a worker's reply or by the gateway (`unavailable`,
/// `deadline_exceeded`); a request whose worker dies is sent to another worker when that is safe;
/// a reply to a client that is not reading is held for it (`HeldReplies`).
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
    /// Requests accepted from each client and not yet answered (queued or with a worker), for
    /// `maximumClientRequests`; a client is here only while it has one.
    private var clientRequests: [Data: Int] = [:]
    private var deadlines = DeadlineQueue()
    private var nextRequestID: UInt64 = 1
    private var heartbeatAt: ContinuousClock.Instant
    private var dispatches: UInt64 = 0
    private var held: HeldReplies
    /// Requests not accepted from clients with `held.limit` replies waiting, by client, until it reads again.
    private var refused: [Data: Int] = [:]
    /// Set when the gateway stops: requests already accepted are still served, new ones are not.
    private(set) var isDraining = false
    /// New requests answered `unavailable` because the gateway was draining, for its last log line.
    private(set) var refusedWhileDraining = 0
    /// Services whose 7/MDP requests carry a Tally JSON envelope: the catalog's and the gateway's.
    private let tallyServices: Set<String>
    private let metrics: GatewayMetrics
    /// `configuration.workerExpiry`, worked out once: every worker message moves an expiry by it.
    private let workerExpiry: Duration
    /// `configuration.tracer`: nil (tracing off) costs a request one check of it.
    private let tracer: TallyTracer?

    /// How often held replies are tried again while a client's queue stays full.
    static let heldReplyRetry = Duration.milliseconds(1)

    init(configuration: GatewayConfiguration, transport: any BrokerTransport, logger: Logger) {
        self.configuration = configuration
        self.transport = transport
        self.logger = logger
        startedAt = clock.now
        heartbeatAt = startedAt + configuration.heartbeatInterval
        held = HeldReplies(limit: configuration.maximumHeldReplies)
        tallyServices = configuration.catalog.workerServices.union(CommandCatalog.gatewayServices)
        metrics = GatewayMetrics(catalog: configuration.catalog)
        workerExpiry = configuration.workerExpiry
        tracer = configuration.tracer
        for name in configuration.catalog.workerServices {
            services[name] = ServiceRecord(name: name, now: startedAt, metrics: metrics.service(name))
        }
    }

    // MARK: Clients

    /// A message from the frontend, identity frame first.
    func handleClient(_ frames: [Data]) {
        switch ClientRequest(frames: frames) {
        case .malformed(let address, let reason):
            guard let address else { return }
            answer(address, id: nil, .invalidArgument(reason))
        case .plain(let identity, let body):
            guard admits(identity) else { return }
            let address = ClientAddress(identity: identity, framing: .plain)
            guard checkSize(body.count, address) else { return }
            acceptEnvelope(body, from: address, frameService: nil)
        case .majordomo(let identity, let serviceFrame, let body):
            guard admits(identity) else { return }
            // The name is visible ASCII (checked with the framing), so this never repairs anything.
            let service = String(decoding: serviceFrame, as: UTF8.self)
            let isTally = tallyServices.contains(service) || service.hasPrefix("mmi.")
            let address = ClientAddress(identity: identity, framing: isTally ? .majordomo(service: serviceFrame) : .opaque(service: serviceFrame))
            guard let first = body.first else {
                answer(address, id: nil, .invalidArgument("a 7/MDP request has frames \"\", \"MDPC01\", service and one or more body frames"))
                return
            }
            guard body.count <= Majordomo.maximumBodyFrames else {
                // Before anything walks the frames: a flood of empty frames costs one answer.
                answer(address, id: nil, .invalidArgument(
                    "a 7/MDP request carries at most \(Majordomo.maximumBodyFrames) body frames (one, the JSON envelope, for Tally's services); got \(body.count)"))
                return
            }
            if service.hasPrefix("mmi.") && first.first != UInt8(ascii: "{") {
                // 8/MMI as the guide's clients speak it: the body is a bare service name.
                let code = mmiCode(service: service, asking: String(decoding: first, as: UTF8.self))
                deliver(address.frames(CollectionOfOne(Data(code.utf8))), to: identity)
                return
            }
            guard checkSize(body.reduce(0) { $0 + $1.count }, address) else { return }
            if isTally {
                guard body.count == 1 else {
                    answer(address, id: nil, .invalidArgument("a 7/MDP request to Tally carries one body frame, the JSON envelope; got \(body.count)"))
                    return
                }
                acceptEnvelope(first, from: address, frameService: service)
            } else {
                acceptOpaque(body, from: address, service: service)
            }
        }
    }

    /// Whether a request from this client may be accepted: not while it has as many replies
    /// waiting as it may (it is not reading them). Such a request is counted and not answered.
    private func admits(_ identity: Data) -> Bool {
        guard held.isFull(identity) else { return true }
        if refused[identity] == nil {
            logger.warning(
                "a client is not reading its replies; its new requests are not accepted until it does",
                metadata: ["held_replies": "\(configuration.maximumHeldReplies)"])
        }
        refused[identity, default: 0] += 1
        return false
    }

    private func checkSize(_ size: Int, _ address: ClientAddress) -> Bool {
        guard size > configuration.maximumMessageBytes else { return true }
        answer(address, id: nil, TallyError(
            .resourceExhausted,
            "the request is \(size) bytes; the gateway accepts at most \(configuration.maximumMessageBytes)"))
        return false
    }

    /// A request of one of Tally's services, or one sent as a plain JSON envelope: routed by the
    /// envelope's command, which is read once, `args` only for its type. Gateway commands are
    /// answered here; the rest are queued for a worker of their service.
    private func acceptEnvelope(_ body: Data, from address: ClientAddress, frameService: String?) {
        let head: EnvelopeHead
        do {
            head = try EnvelopeHead.decode(body)
        } catch {
            answer(address, id: EnvelopeHead.recoverID(from: body), error)
            return
        }
        let service = String(head.service)
        // A 7/MDP client names the service in a frame; 8/MMI names the whole command there (`mmi.service`).
        if let frameService, frameService != service && frameService != head.command {
            answer(address, id: head.id, .invalidArgument(
                "command '\(head.command)' belongs to service '\(service)' but was sent to service '\(frameService)'",
                field: "command"))
            return
        }
        if CommandCatalog.gatewayServices.contains(service) {
            deliver(address.frames(CollectionOfOne(answerGatewayCommand(body, head: head))), to: address.identity)
            return
        }
        let timeout = head.deadlineMs.map { Duration.milliseconds($0) } ?? configuration.defaultDeadline
        enqueue(
            body: [body][...], from: address, service: service, command: head.command,
            envelopeID: head.id, timeout: timeout,
            retrySafe: configuration.catalog.isSafeToRetry(command: head.command, idempotencyKey: head.idempotencyKey),
            trace: (head.traceparent, head.tracestate))
    }

    /// A 7/MDP request of a service Tally does not define: its body frames go to a worker untouched.
    /// Nothing in them says whether it changes state, so it is never sent to a second worker.
    private func acceptOpaque(_ body: ArraySlice<Data>, from address: ClientAddress, service: String) {
        enqueue(
            body: body, from: address, service: service, command: nil, envelopeID: nil, timeout: configuration.defaultDeadline,
            retrySafe: false)
    }

    private func enqueue(
        body: ArraySlice<Data>, from address: ClientAddress, service: String, command: String?, envelopeID: String?,
        timeout: Duration, retrySafe: Bool, trace: (parent: String?, state: String?) = (nil, nil)
    ) {
        guard !isDraining else {
            refusedWhileDraining += 1
            answer(address, id: envelopeID, TallyError(
                .unavailable, "the gateway is shutting down; retry shortly, or through another gateway"))
            return
        }
        guard let serviceRecord = services[service] else {
            let known = services.keys.sorted().joined(separator: ", ")
            answer(address, id: envelopeID, TallyError(
                .unimplemented, "there is no service '\(service)'; this gateway serves \(known), system and mmi",
                field: command == nil ? nil : "command"))
            return
        }
        /// Answers `resource_exhausted` at once, counted as an error of the service and the command.
        func refuse(_ message: String) {
            answer(address, id: envelopeID, TallyError(.resourceExhausted, message))
            serviceRecord.record(error: true)
            metrics.command(command, of: service).record(outcome: ErrorCode.resourceExhausted.rawValue, duration: nil)
        }
        guard serviceRecord.queue.count < configuration.maximumQueueDepth else {
            refuse("\(configuration.maximumQueueDepth) \(service) requests are already waiting for a worker; retry later")
            return
        }
        guard clientRequests[address.identity, default: 0] < configuration.maximumClientRequests else {
            refuse(
                "this client already has \(configuration.maximumClientRequests) requests waiting or running at the gateway (--max-client-requests); wait for their replies before sending more")
            return
        }
        clientRequests[address.identity, default: 0] += 1
        let request = PendingRequest(
            id: nextRequestID, client: address, envelopeID: envelopeID, command: command, service: service,
            body: body, acceptedAt: clock.now, timeout: timeout, retrySafe: retrySafe)
        nextRequestID += 1
        if let tracer, let command {
            // A child of the caller's span, or the root of a new trace when the caller sent none.
            let span = tracer.startSpan(SpanNames.request(command), kind: .server, traceparent: trace.parent, tracestate: trace.state)
            SpanNames.setRequestAttributes(span, command: command, requestID: envelopeID)
            request.span = span
            request.traceparentFrame = tracer.traceparent(of: span).map { Data($0.utf8) }
        }
        requests[request.id] = request
        deadlines.insert(request: request.id, deadline: request.deadline, timeout: timeout)
        serviceRecord.queue.append(request.id)
        dispatch(serviceRecord, now: request.acceptedAt)
    }

    // MARK: Workers

    /// A message from the backend, identity frame first; `permit` is what its connection's CURVE
    /// key allows (nil without CURVE: any service).
    func handleWorker(_ frames: [Data], permit: WorkerPermit? = nil) {
        guard frames.count >= 2, let identity = frames.first else { return }
        guard let message = Majordomo.WorkerMessage(frames: frames[1...]) else {
            // A registered worker that breaks the protocol is news; a stranger's garbage, repeated
            // at will, would only flood the log.
            if workers[identity] != nil {
                logger.warning("malformed message on the worker socket", metadata: ["frames": "\(frames.count - 1)"])
                removeWorker(identity, reason: "sent a malformed message", notify: true)
            } else {
                logger.debug("malformed message on the worker socket", metadata: ["frames": "\(frames.count - 1)"])
            }
            return
        }
        let now = clock.now
        let known = workers[identity]
        known?.expiry = now + workerExpiry
        switch message {
        case .ready(let service, let capacity, let descriptionFrame, let takesTraceContext):
            guard known == nil else {
                removeWorker(identity, reason: "sent READY twice", notify: true)
                return
            }
            guard Majordomo.isValidServiceName(Data(service.utf8)), !Majordomo.isGatewayService(service) else {
                logger.warning("refused a worker for a reserved or malformed service name", metadata: ["service": "\(service)"])
                _ = transport.sendToWorker([identity] + Majordomo.BrokerMessage.disconnect.frames)
                return
            }
            if let permit, !permit.allows(service) {
                logger.warning(
                    "refused a worker: its CURVE key may not serve this service",
                    metadata: ["service": "\(service)", "key": "\(permit.name)", "allowed": "\(permit.allowedDescription)"])
                _ = transport.sendToWorker([identity] + Majordomo.BrokerMessage.disconnect.frames)
                return
            }
            // The catalog describes Tally's own services; a worker describes any other.
            var description: WorkerDescription?
            if let descriptionFrame, !tallyServices.contains(service) {
                do {
                    description = try WorkerDescription.decode(descriptionFrame, service: service)
                } catch {
                    logger.warning("refused a worker: its READY describes its commands wrongly", metadata: ["service": "\(service)", "reason": "\(error.message)"])
                    _ = transport.sendToWorker([identity] + Majordomo.BrokerMessage.disconnect.frames)
                    return
                }
            }
            let worker = WorkerRecord(
                identity: identity, service: service, capacity: capacity, takesTraceContext: takesTraceContext, expiry: now + workerExpiry)
            workers[identity] = worker
            let serviceRecord = services[service] ?? ServiceRecord(name: service, now: now, metrics: metrics.service(service))
            services[service] = serviceRecord
            if let description { serviceRecord.description = description }
            serviceRecord.members.append(worker)
            serviceRecord.metrics.liveWorkers.record(serviceRecord.liveWorkers)
            logger.info("worker joined", metadata: ["service": "\(service)", "workers": "\(serviceRecord.liveWorkers)"])
            // Acknowledge at once, before any request, so the worker can report itself ready now
            // instead of at the next heartbeat, and knows to send each reply's outcome.
            _ = transport.sendToWorker([identity] + Majordomo.BrokerMessage.welcome.frames)
            dispatch(serviceRecord, now: now)
        case .reply(let client, let body):
            answered(client: client, outcome: nil, body: body, by: known, identity: identity, now: now)
        case .replyWithOutcome(let client, let outcome, let body):
            answered(client: client, outcome: outcome, body: body, by: known, identity: identity, now: now)
        case .heartbeat:
            if known == nil {
                // A worker we do not know (we restarted, or expired it): make it reconnect and READY again.
                _ = transport.sendToWorker([identity] + Majordomo.BrokerMessage.disconnect.frames)
            }
        case .disconnect:
            removeWorker(identity, reason: "disconnected", notify: false)
        case .drain:
            // Acknowledged at once, and the acknowledgement is the last message the worker gets:
            // every REQUEST sent before it reaches the worker first, and the worker answers what
            // it receives until it reads this. A worker not registered has nothing to finish.
            _ = transport.sendToWorker([identity] + Majordomo.BrokerMessage.disconnect.frames)
            if let known { beginLeaving(known) }
        }
    }

    /// A worker's REPLY: forwarded to its client unread, and counted by the outcome the worker
    /// reported with it (`WorkerMessage.replyWithOutcome`; none from a plain 7/MDP worker).
    private func answered(
        client: Data, outcome: String?, body: [Data], by known: WorkerRecord?, identity: Data, now: ContinuousClock.Instant
    ) {
        guard let worker = known else {
            _ = transport.sendToWorker([identity] + Majordomo.BrokerMessage.disconnect.frames)
            return
        }
        guard let holding = PendingRequest.id(fromToken: client), let index = worker.held.firstIndex(of: holding) else {
            // 7/MDP: a REPLY from a worker that holds no request (or answers another) is answered DISCONNECT.
            removeWorker(identity, reason: "sent a REPLY for a request it does not hold", notify: true)
            return
        }
        worker.held.remove(at: index)
        if worker.isLeaving && worker.held.isEmpty {
            workers[identity] = nil
            logger.info("worker left", metadata: ["service": "\(worker.service)", "reason": "drained"])
        }
        let serviceRecord = services[worker.service]!
        if let request = forget(holding) {
            deliver(request.client.frames(body), to: request.client.identity)
            let handling = now - (request.dispatchedAt ?? now)
            // The worker's word, never the body's: a reply without an outcome is counted ok.
            let isError = outcome.map { $0 != "ok" } ?? false
            if let span = request.span {
                SpanNames.setOutcome(span, errorCode: isError ? outcome : nil)
                span.end()
            }
            serviceRecord.record(served: handling, error: isError)
            metrics.command(request.command, of: request.service).record(
                outcome: isError ? "error" : "ok", duration: now - request.acceptedAt)
            logger.debug(
                "answered", metadata: ["request_id": "\(request.envelopeID ?? "")", "command": "\(request.label)", "ok": "\(!isError)"])
        } else {
            logger.debug("dropped a reply for a request already answered", metadata: ["service": "\(worker.service)"])
        }
        dispatch(serviceRecord, now: now)
    }

    /// Takes a draining worker out of its service, so it is sent nothing more, and forgets it
    /// once it has answered the requests it holds (at once when it holds none). Until then its
    /// replies are passed on as any worker's; should it die first, its requests are
    /// re-dispatched or failed as `removeWorker` says.
    private func beginLeaving(_ worker: WorkerRecord) {
        worker.isLeaving = true
        let service = services[worker.service]!
        service.members.removeAll { $0 === worker }
        service.metrics.liveWorkers.record(service.liveWorkers)
        guard !worker.held.isEmpty else {
            workers[worker.identity] = nil
            logger.info("worker left", metadata: ["service": "\(worker.service)", "reason": "drained"])
            return
        }
        logger.info(
            "worker leaving once it has answered what it holds",
            metadata: ["service": "\(worker.service)", "requests": "\(worker.held.count)"])
    }

    /// Sends queued requests of `service` to its workers with room for one: the least loaded
    /// first, and of those the one that has waited longest.
    /// `now` is the time its caller read, so one message reads the clock once.
    private func dispatch(_ service: ServiceRecord, now: ContinuousClock.Instant) {
        defer { service.metrics.queueDepth.record(service.queue.count) }
        while let requestID = service.queue.first {
            guard let request = requests[requestID] else {
                service.queue.removeFirst()  // answered already (deadline)
                continue
            }
            guard let worker = leastLoadedWorker(of: service) else { return }
            let body = request.body
            var frames: [Data] = []
            frames.reserveCapacity(6 + body.count)
            frames.append(worker.identity)
            frames.append(contentsOf: Majordomo.BrokerMessage.requestHeader)
            frames.append(PendingRequest.token(requestID))
            if worker.takesTraceContext, let traceparent = request.traceparentFrame { frames.append(traceparent) }
            frames.append(Data())
            frames.append(contentsOf: body)
            guard transport.sendToWorker(frames) == .sent else {
                removeWorker(worker.identity, reason: "unreachable", notify: false)
                continue
            }
            service.queue.removeFirst()
            request.worker = worker.identity
            request.dispatchedAt = now
            request.attempts += 1
            if let span = request.span {
                // The queue wait, as an event of the request's span: when it left the queue, after how long.
                span.addEvent(SpanEvent(name: "dispatched", attributes: [
                    "tally.queue_wait_ms": .int64(Int64((now - request.acceptedAt).roundedMilliseconds)),
                    "tally.attempt": .int64(Int64(request.attempts)),
                ]))
            }
            worker.held.append(requestID)
            dispatches += 1
            worker.lastDispatch = dispatches
        }
    }

    /// The worker of `service` with room for another request that holds the fewest, and of
    /// those the one given a request longest ago; nil when every one is full.
    private func leastLoadedWorker(of service: ServiceRecord) -> WorkerRecord? {
        var best: WorkerRecord?
        for worker in service.members where worker.hasRoom {
            if let current = best, (current.held.count, current.lastDispatch) <= (worker.held.count, worker.lastDispatch) { continue }
            best = worker
            if worker.held.isEmpty && worker.lastDispatch == 0 { break }  // new and idle: none is better
        }
        return best
    }

    /// Forgets a worker. A request it held goes to another worker when safe, else is answered
    /// `unavailable`: never dropped.
    private func removeWorker(_ identity: Data, reason: String, notify: Bool) {
        guard let worker = workers.removeValue(forKey: identity) else { return }
        if notify { _ = transport.sendToWorker([identity] + Majordomo.BrokerMessage.disconnect.frames) }
        let service = services[worker.service]!
        service.members.removeAll { $0 === worker }
        service.metrics.liveWorkers.record(service.liveWorkers)
        logger.info("worker left", metadata: ["service": "\(worker.service)", "reason": "\(reason)"])
        // Put back in their original order, ahead of everything queued since.
        for requestID in worker.held.reversed() {
            guard let request = requests[requestID] else { continue }
            request.worker = nil
            request.dispatchedAt = nil
            if request.retrySafe && request.attempts < configuration.maximumAttempts {
                logger.warning(
                    "re-dispatching a request whose worker left",
                    metadata: ["command": "\(request.label)", "request_id": "\(request.envelopeID ?? "")"])
                service.metrics.redispatches.increment()
                service.queue.prepend(requestID)
            } else {
                forget(requestID)
                let why =
                    if request.retrySafe {
                        "\(request.attempts) \(worker.service) workers in a row stopped while running \(request.label)"
                    } else if request.command != nil {
                        "the \(worker.service) worker running \(request.label) stopped before answering; it was not retried because it changes state and carried no idempotency_key"
                    } else {
                        "the \(worker.service) worker running \(request.label) stopped before answering; it was not retried because the gateway cannot tell whether it changes state"
                    }
                fail(request, TallyError(.unavailable, why))
            }
        }
        dispatch(service, now: clock.now)
    }

    // MARK: Timers

    /// How long the poll may sleep before the next heartbeat or deadline is due, or before held
    /// replies are tried again.
    func timeUntilNextTimer() -> Duration {
        var next = heartbeatAt
        if let soonest = deadlines.soonest, soonest < next { next = soonest }
        let wait = max(.zero, next - clock.now)
        return held.isEmpty ? wait : min(wait, Self.heldReplyRetry)
    }

    /// Answers requests past their deadline, expires silent workers, sends heartbeats, and
    /// retries held replies.
    func tick() {
        if !held.isEmpty { flushHeldReplies() }
        deadlines.dropAnswered { requests[$0] != nil }
        let now = clock.now
        while let due = deadlines.popDue(now) {
            guard let request = forget(due) else { continue }
            let ms = request.timeout.roundedMilliseconds
            metrics.service(request.service).deadlineExpiries.increment()
            if request.worker == nil {
                let service = services[request.service]!
                service.queue.removeAll { $0 == request.id }
                metrics.service(request.service).queueDepth.record(service.queue.count)
                let live = service.liveWorkers
                fail(request, live == 0
                    ? TallyError(.unavailable, "no \(request.service) worker is connected; none became available within \(ms) ms")
                    : TallyError(.deadlineExceeded, "all \(live) \(request.service) workers stayed busy for \(ms) ms"))
            } else {
                fail(request, TallyError(.deadlineExceeded, "\(request.label) did not finish within \(ms) ms"))
            }
        }
        guard now >= heartbeatAt else { return }
        // A worker running a request whose deadline has not passed is busy, not dead: it may not
        // send a message until it has finished. Past the deadline, silence counts again.
        for (identity, worker) in workers where worker.expiry <= now && !isRunningALiveRequest(worker) {
            removeWorker(identity, reason: "missed \(configuration.liveness) heartbeats", notify: false)
        }
        // Not to a leaving worker: the DISCONNECT it was sent is its last message, and its replies
        // may still be on their way after it has closed its socket.
        for worker in Array(workers.values) where !worker.isLeaving
            && transport.sendToWorker([worker.identity] + Majordomo.BrokerMessage.heartbeat.frames) != .sent
        {
            removeWorker(worker.identity, reason: "unreachable", notify: false)
        }
        // The latency windows move on here, once per heartbeat, rather than per request.
        for service in services.values { service.recent.advance(to: now) }
        heartbeatAt = now + configuration.heartbeatInterval
    }

    /// Takes an answered request off the books, and off its client's count.
    @discardableResult
    private func forget(_ id: UInt64) -> PendingRequest? {
        guard let request = requests.removeValue(forKey: id) else { return nil }
        let client = request.client.identity
        if let index = clientRequests.index(forKey: client) {
            if clientRequests.values[index] > 1 { clientRequests.values[index] -= 1 } else { clientRequests.remove(at: index) }
        }
        return request
    }

    private func isRunningALiveRequest(_ worker: WorkerRecord) -> Bool {
        worker.held.contains { requests[$0] != nil }
    }

    private func flushHeldReplies() {
        for (identity, dropped) in held.flush(transport.sendToClient) {
            logger.debug("client gone before its replies", metadata: ["replies": "\(dropped)"])
            refused[identity] = nil
        }
        for (identity, count) in refused where !held.isFull(identity) {
            logger.info("a client reads its replies again", metadata: ["requests_not_accepted": "\(count)"])
            refused[identity] = nil
        }
    }

    /// The first step of a graceful stop: from now on new requests are answered `unavailable`,
    /// while those accepted before are still dispatched and their replies passed on.
    func beginDrain() {
        isDraining = true
        logger.info("gateway draining: answering the requests it holds, refusing new ones", metadata: [
            "requests": "\(requests.count)"])
    }

    /// Requests accepted and not yet answered (waiting for a worker, or with one).
    var pendingRequests: Int { requests.count }

    /// Whether anything is still owed to a client: a request not yet answered, or a reply held
    /// for a client whose queue was full.
    var owesReplies: Bool { !requests.isEmpty || !held.isEmpty }

    /// Answers everything still pending and tells workers to go, before the gateway stops.
    func shutdown() {
        for request in requests.values {
            fail(request, TallyError(.unavailable, "the gateway is shutting down; retry shortly"))
        }
        requests.removeAll()
        clientRequests.removeAll()
        held.flushForShutdown(transport.sendToClient)
        for worker in workers.values where !worker.isLeaving {
            _ = transport.sendToWorker([worker.identity] + Majordomo.BrokerMessage.disconnect.frames)
        }
    }

    // MARK: Replies

    private func fail(_ request: PendingRequest, _ error: TallyError) {
        if let span = request.span {
            SpanNames.setOutcome(span, errorCode: error.code.rawValue)
            span.end()
        }
        services[request.service]?.record(error: true)
        metrics.command(request.command, of: request.service).record(
            outcome: error.code.rawValue, duration: clock.now - request.acceptedAt)
        logger.debug(
            "answered by the gateway",
            metadata: ["request_id": "\(request.envelopeID ?? "")", "command": "\(request.label)", "code": "\(error.code.rawValue)"])
        answer(request.client, id: request.envelopeID, error)
    }

    /// Sends an answer the gateway made itself.
    private func answer(_ address: ClientAddress, id: String?, _ error: TallyError) {
        deliver(address.gatewayAnswer(id: id, error: error), to: address.identity)
    }

    /// Sends a reply, or holds it while the client's queue is full; it is dropped only when the
    /// client is gone.
    private func deliver(_ frames: [Data], to identity: Data) {
        if held.holds(identity) {
            held.hold(frames, for: identity)
            return
        }
        switch transport.sendToClient(frames) {
        case .sent: break
        case .full:
            logger.debug("a client's queue is full; holding its replies until it reads")
            held.hold(frames, for: identity)
        case .gone: logger.debug("client gone before its reply")
        }
    }

}

extension ServiceRecord {
    func record(served handling: Duration, error: Bool) {
        served += 1
        handled += 1
        handlingTime += handling
        recent.record(handling)
        if error { errors += 1 }
    }

    func record(error: Bool) {
        if error { errors += 1 }
    }
}

extension Duration {
    var roundedMilliseconds: Int {
        let (seconds, attoseconds) = components
        return Int(seconds * 1000 + (attoseconds + 500_000_000_000_000) / 1_000_000_000_000_000)
    }
}
