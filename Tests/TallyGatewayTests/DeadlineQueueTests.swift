import Testing

@testable import TallyGateway

@Suite struct DeadlineQueueTests {
    let start = ContinuousClock.now

    /// A queue of `count` requests (ids 1...count), each with one of `timeouts`, in turn.
    func queue(_ count: Int, timeouts: [Duration] = [.seconds(5)]) -> DeadlineQueue {
        var queue = DeadlineQueue()
        for id in 1...count {
            let timeout = timeouts[(id - 1) % timeouts.count]
            queue.insert(request: UInt64(id), deadline: start + timeout, timeout: timeout)
        }
        return queue
    }

    @Test func answeredRequestsLeaveFromTheFront() {
        var deadlines = queue(1000)
        var pending = Set<UInt64>(991...1000)
        deadlines.dropAnswered { pending.contains($0) }
        #expect(deadlines.count == 10)
        pending.removeAll()
        deadlines.dropAnswered { pending.contains($0) }
        #expect(deadlines.count == 0)
        #expect(deadlines.soonest == nil)
    }

    @Test func anEntryBehindAPendingOneWaitsItsTurn() {
        var deadlines = queue(100)
        // Request 3 still runs; 1, 2 and 4 to 100 were answered.
        deadlines.dropAnswered { $0 == 3 }
        #expect(deadlines.count == 98)
        // Due, the broker finds the answered ones gone and only 3 left to answer.
        var due: [UInt64] = []
        while let id = deadlines.popDue(start + .seconds(6)) { due.append(id) }
        #expect(due.count == 98)
        #expect(due.first == 3)
    }

    @Test func eachTimeoutsQueueAndTheOverflowAreKeptShort() {
        // 40 distinct timeouts: 32 queues of 100 requests each, and 800 requests in the overflow
        // heap. The last request of each timeout is still pending.
        let timeouts = (1...40).map { Duration.milliseconds(1000 + $0) }
        var deadlines = queue(4000, timeouts: timeouts)
        let pending = Set<UInt64>(3961...4000)
        deadlines.dropAnswered { pending.contains($0) }
        // Each queue keeps its pending request alone; the heap, ordered by deadline, keeps what
        // follows its first pending entry.
        #expect(deadlines.count <= 4000 - 32 * 99)
        var due = Set<UInt64>()
        while let id = deadlines.popDue(start + .seconds(2)) { due.insert(id) }
        #expect(due.isSuperset(of: pending))
        deadlines = queue(4000, timeouts: timeouts)
        deadlines.dropAnswered { _ in false }
        #expect(deadlines.count == 0)
    }

    @Test func pendingRequestsStillFallDueInDeadlineOrder() {
        var deadlines = DeadlineQueue()
        deadlines.insert(request: 1, deadline: start + .seconds(5), timeout: .seconds(5))
        deadlines.insert(request: 2, deadline: start + .seconds(1), timeout: .seconds(1))
        deadlines.insert(request: 3, deadline: start + .seconds(6), timeout: .seconds(5))
        deadlines.dropAnswered { _ in true }
        #expect(deadlines.count == 3)
        #expect(deadlines.soonest == start + .seconds(1))
        #expect(deadlines.popDue(start + .seconds(2)) == 2)
        #expect(deadlines.popDue(start + .seconds(2)) == nil)
        #expect(deadlines.popDue(start + .seconds(7)) == 1)
        #expect(deadlines.popDue(start + .seconds(7)) == 3)
    }
}
