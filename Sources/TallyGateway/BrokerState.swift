import DequeModule
import Foundation
import Tracing
import TallyProtocol

/// A request the gateway has accepted and not yet answered.
///
/// A class, as `WorkerRecord` is: held in the broker's table from its acceptance to its answer and
/// read there on every message about it; as a struct every such read (even `requests[id] != nil`)
/// copied it whole, retaining and releasing each of its fields, about 6 % of the socket thread.
final class PendingRequest {
    let id: UInt64
    let client: ClientAddress
    /// The envelope's `id`, echoed in replies the gateway writes itself (Tally requests only).
    let envelopeID: String?
    /// The envelope's command; nil for a request to a service Tally does not define, whose body
    /// the gateway does not read.
    let command: String?
    let service: String
    /// The body frames, as the client sent them.
    let body: ArraySlice<Data>
    let acceptedAt: ContinuousClock.Instant
    /// The client's `deadline_ms`, or the gateway's default.
    let timeout: Duration
    /// Whether a second worker may run it when the first dies holding it.
    let retrySafe: Bool
    var worker: Data?
    var dispatchedAt: ContinuousClock.Instant?
    var attempts = 0
    /// The gateway's span of the request, from its arrival to its answer, while tracing is on.
    var span: (any Span)?
    /// That span's W3C `traceparent`, the frame a REQUEST carries to a worker that asked for it.
    var traceparentFrame: Data?

    init(
        id: UInt64, client: ClientAddress, envelopeID: String?, command: String?, service: String, body: ArraySlice<Data>,
        acceptedAt: ContinuousClock.Instant, timeout: Duration, retrySafe: Bool
    ) {
        self.id = id
        self.client = client
        self.envelopeID = envelopeID
        self.command = command
        self.service = service
        self.body = body
        self.acceptedAt = acceptedAt
        self.timeout = timeout
        self.retrySafe = retrySafe
    }

    var deadline: ContinuousClock.Instant { acceptedAt + timeout }

    /// How messages name it: `calc.tip`, or `a my-echo request`.
    var label: String { command ?? "a \(service) request" }

    /// The token sent to the worker as the 7/MDP "client address": it maps the reply back here.
    static func token(_ id: UInt64) -> Data { withUnsafeBytes(of: id.bigEndian) { Data($0) } }

    static func id(fromToken token: Data) -> UInt64? {
        guard token.count == 8 else { return nil }
        return token.reduce(0) { $0 << 8 | UInt64($1) }
    }
}

/// A registered worker.
///
/// A class, as `ServiceRecord` is: the broker's one thread finds it once per message and changes
/// it in place. As structs in dictionaries, every read of either copied it whole (retaining each
/// field) and every change looked it up again: about a seventh of the gateway's socket thread
/// under load (`docs/performance.md`).
final class WorkerRecord {
    let identity: Data
    let service: String
    /// How many requests it takes at once: 1, as 7/MDP says, unless its READY said more.
    let capacity: Int
    var expiry: ContinuousClock.Instant
    /// The requests it holds, oldest first, at most `capacity`. One stays after the gateway has
    /// answered it at its deadline, until the worker replies.
    var held: [UInt64] = []
    /// When it was last given a request (a count of dispatches), so that of equally loaded
    /// workers the one that has waited longest gets the next.
    var lastDispatch: UInt64 = 0
    /// Set when it asked to drain before leaving (`Majordomo.WorkerMessage.drain`): it is no
    /// longer one of its service's members, so it gets no more requests, and is kept only until
    /// it has answered those it holds.
    var isLeaving = false
    /// Whether its READY asked for the gateway's trace context in each REQUEST (6.1, `traceparent`).
    let takesTraceContext: Bool

    init(identity: Data, service: String, capacity: Int, takesTraceContext: Bool = false, expiry: ContinuousClock.Instant) {
        self.identity = identity
        self.service = service
        self.capacity = capacity
        self.takesTraceContext = takesTraceContext
        self.expiry = expiry
    }

    var hasRoom: Bool { held.count < capacity }
}

/// A service: its workers, its queue, and its counters for `system.services`. A class, for the
/// reason `WorkerRecord` gives.
final class ServiceRecord {
    let name: String
    /// Its registered workers, in the order they arrived.
    var members: [WorkerRecord] = []
    /// Registered and heartbeating: every member, since an expired or departed worker is removed.
    var liveWorkers: Int { members.count }
    var queue: Deque<UInt64> = []
    var served = 0
    var errors = 0
    var handlingTime: Duration = .zero
    var handled = 0
    /// Handling times of the last minute or so, for percentiles.
    var recent: RecentLatency
    /// Its gauges and counters, kept here so a dispatch does not look them up by name.
    let metrics: ServiceMetrics
    /// What its workers said about its commands in their READY, the latest one that did
    /// (`system.describe`); nil for a plain 7/MDP worker's service and for the catalog's.
    var description: WorkerDescription?

    init(name: String, now: ContinuousClock.Instant, metrics: ServiceMetrics) {
        self.name = name
        recent = RecentLatency(now: now)
        self.metrics = metrics
    }

    var meanHandlingMilliseconds: Double {
        guard handled > 0 else { return 0 }
        let (seconds, attoseconds) = (handlingTime / handled).components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}
