import DequeModule
import Foundation

/// A request the gateway has accepted and not yet answered.
struct PendingRequest {
    let id: UInt64
    let client: ClientAddress
    /// The envelope's `id`, echoed in replies the gateway writes itself.
    let envelopeID: String?
    let command: String
    let service: String
    let body: Data
    let acceptedAt: ContinuousClock.Instant
    /// The client's `deadline_ms`, or the gateway's default.
    let timeout: Duration
    /// Whether a second worker may run it when the first dies holding it.
    let retrySafe: Bool
    var worker: Data?
    var dispatchedAt: ContinuousClock.Instant?
    var attempts = 0

    var deadline: ContinuousClock.Instant { acceptedAt + timeout }

    /// The token sent to the worker as the 7/MDP "client address": it maps the reply back here.
    var token: Data { withUnsafeBytes(of: id.bigEndian) { Data($0) } }

    static func id(fromToken token: Data) -> UInt64? {
        guard token.count == 8 else { return nil }
        return token.reduce(0) { $0 << 8 | UInt64($1) }
    }
}

/// A registered worker.
struct WorkerRecord {
    let identity: Data
    let service: String
    var expiry: ContinuousClock.Instant
    /// The request it is running, if any: one at a time, as in 7/MDP.
    var request: UInt64?
}

/// A service: its workers waiting for work, its queue, and its counters for `system.services`.
struct ServiceRecord {
    let name: String
    /// Idle workers, least recently used first, so work spreads over all of them.
    var idle: Deque<Data> = []
    var queue: Deque<UInt64> = []
    var liveWorkers = 0
    var served = 0
    var errors = 0
    var handlingTime: Duration = .zero
    var handled = 0

    init(name: String) { self.name = name }

    var meanHandlingMilliseconds: Double {
        guard handled > 0 else { return 0 }
        let (seconds, attoseconds) = (handlingTime / handled).components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}

/// When a request's deadline falls, for the deadline heap.
struct DeadlineEntry: Comparable {
    let deadline: ContinuousClock.Instant
    let request: UInt64
    static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.deadline, lhs.request) < (rhs.deadline, rhs.request)
    }
}
