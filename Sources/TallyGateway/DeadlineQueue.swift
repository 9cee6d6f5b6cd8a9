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
/// An answered request's entry leaves when it reaches the front of its queue (`dropAnswered`) or
/// falls due, whichever is first; the broker skips due entries of requests it no longer holds.
struct DeadlineQueue {
    /// A few timeouts, each with its entries in acceptance order; found by a linear search, which
    /// for so few beats hashing a `Duration`.
    private var buckets: [(timeout: Duration, entries: Deque<DeadlineEntry>)] = []
    private var overflow = Heap<DeadlineEntry>()
    private let bucketLimit = 32

    mutating func insert(request: UInt64, deadline: ContinuousClock.Instant, timeout: Duration) {
        let entry = DeadlineEntry(deadline: deadline, request: request)
        if let index = buckets.firstIndex(where: { $0.timeout == timeout }) {
            buckets[index].entries.append(entry)
        } else if buckets.count < bucketLimit {
            buckets.append((timeout, [entry]))
        } else {
            overflow.insert(entry)
        }
    }

    /// Entries held, answered or not.
    var count: Int { buckets.reduce(overflow.count) { $0 + $1.entries.count } }

    /// Drops the entries at the front of each queue whose request has been answered (`isPending`
    /// is false), up to the first still pending. Requests of one timeout are mostly answered in the
    /// order they came, so the queues stay near the requests in flight. Left until due, entries
    /// held every request of the last timeout: at 70,000 requests a second and the default 5 s, 11
    /// MB of the gateway's memory. One lookup an entry, which falling due cost too.
    mutating func dropAnswered(isPending: (UInt64) -> Bool) {
        for index in buckets.indices.reversed() {
            while let first = buckets[index].entries.first, !isPending(first.request) {
                buckets[index].entries.removeFirst()
            }
            if buckets[index].entries.isEmpty { buckets.remove(at: index) }
        }
        while let first = overflow.min, !isPending(first.request) { overflow.removeMin() }
    }

    var soonest: ContinuousClock.Instant? {
        var soonest = overflow.min?.deadline
        for bucket in buckets {
            if let first = bucket.entries.first?.deadline, soonest.map({ first < $0 }) ?? true { soonest = first }
        }
        return soonest
    }

    /// Removes the soonest entry if it is due by `now`, and returns its request.
    mutating func popDue(_ now: ContinuousClock.Instant) -> UInt64? {
        var best: (bucket: Int?, entry: DeadlineEntry)?
        if let first = overflow.min, first.deadline <= now { best = (nil, first) }
        for index in buckets.indices {
            if let first = buckets[index].entries.first, first.deadline <= now, best.map({ first < $0.entry }) ?? true {
                best = (index, first)
            }
        }
        guard let best else { return nil }
        if let index = best.bucket {
            buckets[index].entries.removeFirst()
            if buckets[index].entries.isEmpty { buckets.remove(at: index) }
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
