import DequeModule
import HeapModule

/// The deadlines of accepted requests, soonest first.
///
/// Requests with the same timeout fall due in the order they were accepted, and most requests
/// share one of a few timeouts (the default, or the few `deadline_ms` a client uses). So each
/// timeout keeps a queue in acceptance order, and the soonest deadline is the soonest of a few queue
/// heads: O(1) a request, where one heap of every request cost O(log n) to insert and again to
/// remove. Past `bucketLimit` distinct timeouts, the rest share a heap.
///
/// Entries stay until they fall due, whether or not their request has been answered: the broker
/// skips those it no longer holds.
struct DeadlineQueue {
    private var buckets: [Duration: Deque<DeadlineEntry>] = [:]
    private var overflow = Heap<DeadlineEntry>()
    private let bucketLimit = 32

    mutating func insert(request: UInt64, deadline: ContinuousClock.Instant, timeout: Duration) {
        let entry = DeadlineEntry(deadline: deadline, request: request)
        if buckets[timeout] != nil || buckets.count < bucketLimit {
            buckets[timeout, default: []].append(entry)
        } else {
            overflow.insert(entry)
        }
    }

    var soonest: ContinuousClock.Instant? {
        var soonest = overflow.min?.deadline
        for queue in buckets.values {
            if let first = queue.first?.deadline, soonest.map({ first < $0 }) ?? true { soonest = first }
        }
        return soonest
    }

    /// Removes the soonest entry if it is due by `now`, and returns its request.
    mutating func popDue(_ now: ContinuousClock.Instant) -> UInt64? {
        var best: (timeout: Duration?, entry: DeadlineEntry)?
        if let first = overflow.min, first.deadline <= now { best = (nil, first) }
        for (timeout, queue) in buckets {
            if let first = queue.first, first.deadline <= now, best.map({ first < $0.entry }) ?? true { best = (timeout, first) }
        }
        guard let best else { return nil }
        if let timeout = best.timeout {
            buckets[timeout]!.removeFirst()
            if buckets[timeout]!.isEmpty { buckets[timeout] = nil }
        } else {
            overflow.removeMin()
        }
        return best.entry.request
    }
}

/// When a request's deadline falls.
struct DeadlineEntry: Comparable {
    let deadline: ContinuousClock.Instant
    let request: UInt64
    static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.deadline, lhs.request) < (rhs.deadline, rhs.request)
    }
}
