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
