import Foundation
import Metrics
import TallyProtocol
import Synchronization

/// Runs the concurrent changes of one process in shared transactions: group commit.
///
/// Why: a transaction costs a lock of the database, a commit and (with a stricter `synchronous`
/// setting) a flush to disk, whatever it holds. When several worker threads of a process change
/// the same service at once, the first to arrive becomes the leader: it takes every change waiting
/// (its own and those that queued behind it, up to `largestBatch`), runs them in ONE write
/// transaction, each in a savepoint of its own, and commits once. A change that fails rolls back
/// alone and never takes its neighbours with it; every change's caller is answered only after the
/// commit that holds it is on the disk (or with the commit's error, if the commit fails). Once
/// the commit is on the disk the leader runs each change's after-commit action in batch order
/// (publishing its events, in sequence order), then hands leadership to the next waiting thread,
/// so no caller waits for batches after its own. The wait for the disk is outside the commit
/// order (`commitInOrder`): another thread's transaction runs meanwhile.
///
/// With one change at a time this is one transaction per change, as before.
final class GroupCommit: Sendable {
    /// Changes per transaction: bounds how long the first of a batch waits for the last.
    let largestBatch: Int
    private let state = Mutex(State())

    private struct State {
        var waiting: [Ticket] = []
        var leading = false
    }

    private let metrics: Instruments

    init(largestBatch: Int = 64, metrics: Instruments) {
        self.largestBatch = largestBatch
        self.metrics = metrics
    }

    /// What an operator sees of the batches (swift-metrics, per service):
    /// `tally_store_commit_duration_seconds` (one transaction, from its start to its commit),
    /// `tally_store_batch_size` (changes per transaction) and `tally_store_busy_total`
    /// (transactions that failed because the database stayed locked by another writer past the
    /// busy timeout: a sign of a second process writing the same database). PostgreSQL's engine
    /// counts the transactions it ran again after a conflict itself (`tally_store_conflicts_total`).
    struct Instruments: Sendable {
        let commitDuration: Metrics.Timer
        let batchSize: Recorder
        let busy: Counter

        init(service: String) {
            let dimensions = [("service", service)]
            commitDuration = Metrics.Timer(label: "tally_store_commit_duration_seconds", dimensions: dimensions)
            batchSize = Recorder(label: "tally_store_batch_size", dimensions: dimensions, aggregate: true)
            busy = Counter(label: "tally_store_busy_total", dimensions: dimensions)
        }
    }

    /// Changes queued behind the batch being committed (for tests that hold a batch open).
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Transactions committed (or attempted) so far: with `changes`, the mean batch size.
    let transactions = Atomic(0)
    let changes = Atomic(0)

    /// Runs `work` in a savepoint of a write transaction shared with other threads' changes, and
    /// returns its value, and how many changes the transaction held, once that transaction has
    /// committed; its `afterCommit` action runs right after the commit, in batch order. `work`
    /// must not itself call `run` (it would wait for a batch that waits for it).
    func run<T>(
        on engine: any StorageEngine, _ work: (any SQLSession) throws -> (value: T, afterCommit: (@Sendable () -> Void)?)
    ) throws -> (value: T, changes: Int) {
        try withoutActuallyEscaping(work) { work in
            var result: Result<T, any Error>?
            let ticket = Ticket(deadline: StorageDeadline.current)
            ticket.work = { [unowned ticket] session in
                do {
                    let (value, afterCommit) = try work(session)
                    result = .success(value)
                    ticket.afterCommit = afterCommit
                } catch {
                    result = .failure(error)
                    throw error  // so its savepoint rolls back
                }
            }
            let lead = state.withLock { state -> Bool in
                state.waiting.append(ticket)
                defer { state.leading = true }
                return !state.leading
            }
            if lead { leadBatches(on: engine, until: ticket) }
            // Until its ticket is done, this thread may be asked to lead the next batch.
            while case .lead = ticket.wait() { leadBatches(on: engine, until: ticket) }
            if let failure = ticket.commitFailure { throw failure }
            // Set by the leader before it signalled the ticket done.
            return (try result!.get(), ticket.batchSize)
        }
    }

    /// Commits batches until `own` is done, then passes leadership to the next waiting ticket (or
    /// gives it up when none waits).
    private func leadBatches(on engine: any StorageEngine, until own: Ticket) {
        while !own.isDone {
            let batch = state.withLock { state -> [Ticket] in
                let batch = Array(state.waiting.prefix(largestBatch))
                state.waiting.removeFirst(batch.count)
                return batch
            }
            commit(batch, on: engine)
        }
        let next = state.withLock { state -> Ticket? in
            guard let next = state.waiting.first else {
                state.leading = false
                return nil
            }
            return next
        }
        next?.signal(.lead)
    }

    private func commit(_ batch: [Ticket], on engine: any StorageEngine) {
        let started = ContinuousClock.now
        do {
            // Bounded by the most patient change of the batch, not by the leader's own.
            try commitInOrder(on: engine, deadline: StorageDeadline.latest(batch.map(\.deadline))) { session in
                let numbering = EventNumbering()
                for ticket in batch {
                    // A change that throws rolls back to its savepoint, and gives back its
                    // event numbers; its error is its result.
                    _ = try? numbering.change { try session.savepoint { try ticket.perform(session) } }
                }
                try numbering.store(session)
            } whenDurable: { _ in
                record(changes: batch.count, since: started)
                for ticket in batch { ticket.afterCommit?() }
            }
        } catch {
            recordFailure(error)
            for ticket in batch { ticket.commitFailure = error }
        }
        for ticket in batch {
            ticket.batchSize = batch.count
            ticket.finish()
        }
    }

    /// Held by a transaction of this process from before it begins until it has committed,
    /// whether it is a batch of tickets or a `SharedTransaction`. Writers of one database are
    /// serialized anyway; this orders the process's own, so that their turns to publish
    /// (`publishOrder`) are in commit order.
    private let commitOrder = NSLock()
    /// Whose turn it is to wait for the disk and then publish: commits take turns in the order
    /// they committed, so the events of the process reach the sink in the order of their
    /// sequence numbers. (Subscribers read a sequence that goes backwards as a gap and catch up,
    /// which is correct but slow.)
    private let publishOrder = TurnOrder()

    /// Runs `body` in a write transaction of `engine`, as the service's one writer until it ends
    /// (`EventOutbox.takeWritersTurn`), deadline-bound by the batch's most patient change, and
    /// commits it; then, while the process's next transaction may already run, waits
    /// until the commit is on the disk (`StorageEngine.writeDeferringSync`) and runs `whenDurable`
    /// with what `body` returned, both in commit order. Returns only then: nothing of the commit is
    /// answered or published before the disk has it. Throws the transaction's error, or the sync's
    /// (then the commit may be lost, and `whenDurable` does not run).
    func commitInOrder<T>(
        on engine: any StorageEngine, deadline: ContinuousClock.Instant? = StorageDeadline.current,
        _ body: (any SQLSession) throws -> T, whenDurable: (T) throws -> Void
    ) throws {
        let (committed, turn) = try commitOrder.withLock {
            let committed = try StorageDeadline.$current.withValue(deadline) {
                try engine.writeDeferringSync { session in
                    try EventOutbox.takeWritersTurn(session)
                    return try body(session)
                }
            }
            return (committed, publishOrder.take())
        }
        try publishOrder.run(turn) {
            try committed.sync.wait()
            try whenDurable(committed.value)
        }
    }

    /// Counts a committed transaction of `changes` changes (here, or a `SharedTransaction`).
    func record(changes count: Int, since started: ContinuousClock.Instant) {
        transactions.add(1, ordering: .relaxed)
        changes.add(count, ordering: .relaxed)
        metrics.batchSize.record(count)
        metrics.commitDuration.record(duration: ContinuousClock.now - started)
    }

    /// Counts a transaction that could not commit.
    func recordFailure(_ error: any Error) {
        transactions.add(1, ordering: .relaxed)
        // Engines report a database that stayed busy as `unavailable` (see `StorageEngine`).
        if (error as? TallyError)?.code == .unavailable { metrics.busy.increment() }
    }
}

/// One change waiting for, or inside, a batch. Its `work` is only run while the thread that
/// submitted it waits for it, and is dropped before that thread is woken, so it never outlives
/// the closure it wraps (`withoutActuallyEscaping` checks this).
private final class Ticket: @unchecked Sendable {
    enum Signal { case done, lead }

    /// The change; set once, before the ticket is queued.
    var work: ((any SQLSession) throws -> Void)?
    /// The submitting request's `StorageDeadline`.
    let deadline: ContinuousClock.Instant?
    /// Set by `work` when the change succeeded: what to do once it has committed.
    var afterCommit: (@Sendable () -> Void)?
    private let semaphore = DispatchSemaphore(value: 0)
    private let signalled = Mutex<Signal?>(nil)
    /// The commit's error, when the transaction holding this change could not commit.
    var commitFailure: (any Error)?
    /// The changes of the transaction that held this one; set with `finish`.
    var batchSize = 0
    private(set) var isDone = false

    init(deadline: ContinuousClock.Instant?) {
        self.deadline = deadline
    }

    /// Runs the change (on the leader's thread, inside its savepoint). Its own outcome is recorded
    /// by `work`; a throw here rolls the savepoint back. May run more than once, when the engine
    /// retries the whole transaction (see `StorageEngine.write`).
    func perform(_ session: any SQLSession) throws {
        afterCommit = nil
        try work?(session)
    }

    /// The batch holding this change has committed (or failed to).
    func finish() {
        work = nil
        afterCommit = nil
        isDone = true
        signal(.done)
    }

    func signal(_ signal: Signal) {
        signalled.withLock { $0 = signal }
        semaphore.signal()
    }

    /// Blocks until the ticket is done or its thread is asked to lead. Each signal is waited for
    /// exactly once: a ticket is asked to lead only while it waits in the queue, before any batch
    /// holds it, so the two never overlap.
    func wait() -> Signal {
        semaphore.wait()
        return signalled.withLock { signal in
            defer { signal = nil }
            return signal ?? .done
        }
    }
}

/// Turns taken in one order and served in it: `take` hands out the next turn, `run` waits for
/// it, runs, and gives the turn after it. Every turn taken must be run, or the later ones wait
/// for ever; `run` gives the next turn whether its body returns or throws.
private final class TurnOrder: @unchecked Sendable {
    private let condition = NSCondition()
    private var taken: UInt64 = 0
    private var serving: UInt64 = 0

    func take() -> UInt64 {
        condition.withLock {
            defer { taken += 1 }
            return taken
        }
    }

    func run<T>(_ turn: UInt64, _ body: () throws -> T) rethrows -> T {
        condition.withLock {
            while serving != turn { condition.wait() }
        }
        defer {
            condition.withLock {
                serving += 1
                condition.broadcast()
            }
        }
        return try body()
    }
}
