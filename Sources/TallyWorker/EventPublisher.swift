import DequeModule
import Foundation
import Logging
import Metrics
import ServiceLifecycle
import TallyLifecycle
import TallyProtocol
import TallyStorage
import ZeroMQ

/// Publishes a worker process's committed events: one PUB socket, on a thread of its own,
/// connected to the event inlet of every notifier given (so any number of workers feed any number
/// of notifiers). A PUB connected to several endpoints sends each message to every one of them
/// (unlike PUSH, which would deal them out), and each connection has its own queue: a notifier
/// that is down or slow loses only its own copies, and catches up on them from the outbox.
///
/// Handler threads hand events over through `publish(_:)` (a locked queue and a wake-up pipe),
/// so the socket never leaves its thread. Each message is two frames, `[type, CloudEvent JSON]`,
/// so subscribers filter by topic prefix. Publishing is best effort: what a crash or a full queue
/// loses, subscribers recover from the service's outbox with `<service>.events`.
///
/// Metrics: `tally_events_pending{service}`, events committed and not yet handed to the socket
/// (growing means the publisher cannot keep up), and `tally_events_dropped_total{service}`, events
/// dropped because the queue was full (subscribers fetch them from the outbox).
public final class EventPublisher: EventSink, Service, @unchecked Sendable {
    /// The notifiers' inlets; every event goes to each.
    public let endpoints: [String]
    private let context: ZMQContext
    private let logger: Logger
    private let curve: CurveClientKeys?
    private let wakeup = WakeupPipe()
    private let lock = NSLock()
    private var queue: Deque<CloudEvent> = []
    /// Events held while nothing drains them; beyond this the oldest are dropped (the outbox keeps them).
    private let capacity = 100_000
    private let pending: Gauge
    private let dropped: Counter

    /// - Parameters:
    ///   - service: the service whose events these are, for the metrics.
    ///   - endpoints: the notifiers' event inlets, at least one.
    ///   - curve: the worker's key pair and the notifiers' public key (they share one key pair), when they run CURVE.
    public init(service: String, endpoints: [String], context: ZMQContext, logger: Logger, curve: CurveClientKeys? = nil) {
        precondition(!endpoints.isEmpty, "an event publisher needs a notifier's inlet")
        self.endpoints = endpoints
        self.curve = curve
        self.context = context
        self.logger = logger
        pending = Gauge(label: "tally_events_pending", dimensions: [("service", service)])
        dropped = Counter(label: "tally_events_dropped_total", dimensions: [("service", service)])
        pending.record(0)
    }

    public convenience init(service: String, endpoint: String, context: ZMQContext, logger: Logger, curve: CurveClientKeys? = nil) {
        self.init(service: service, endpoints: [endpoint], context: context, logger: logger, curve: curve)
    }

    public func publish(_ events: [CloudEvent]) {
        // The gauge is set under the lock, so it follows the queue's order of changes.
        let overflow = lock.withLock {
            queue.append(contentsOf: events)
            let overflow = max(0, queue.count - capacity)
            if overflow > 0 { queue.removeFirst(overflow) }
            pending.record(queue.count)
            return overflow
        }
        if overflow > 0 { dropped.increment(by: overflow) }
        wakeup.signal()
    }

    public func run() async throws {
        try await DedicatedThread.runUntilShutdown(name: "event-publisher") { [self] stop in
            try publishLoop(until: stop)
        }
    }

    private func publishLoop(until stop: WakeupSignal) throws {
        let socket = try ZMQSocket(context: context, type: .pub)
        defer { socket.close() }
        try socket.setLinger(milliseconds: 1000)
        if let curve { try socket.useCurve(curve) }
        for endpoint in endpoints { try socket.connect(endpoint) }
        logger.debug("publishing events", metadata: ["endpoints": "\(endpoints.joined(separator: ","))"])
        var poller = ZMQPoller()
        poller.add(fileDescriptor: wakeup.fileDescriptor)
        poller.add(fileDescriptor: stop.fileDescriptor)
        while true {
            try poller.poll(timeoutMilliseconds: 1000)
            wakeup.drain()
            let batch: [CloudEvent] = lock.withLock {
                defer { queue.removeAll() }
                if !queue.isEmpty { pending.record(0) }
                return Array(queue)
            }
            for event in batch {
                let body = event.encoded()
                // A PUB never blocks: it copies the message to every connected notifier, and drops it
                // for one that has not subscribed yet or is past its high-water mark.
                _ = try socket.send([Data(event.type.utf8), body], dontWait: true)
            }
            if stop.isFired { return }
        }
    }
}
