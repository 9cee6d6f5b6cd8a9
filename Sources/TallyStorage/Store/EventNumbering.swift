/// The event sequence numbers that the changes of one write transaction take: one counter update
/// for the first change that records events, one more before the commit if later changes took
/// numbers too, instead of one per change.
///
/// Why: group commit runs a dozen or more changes in a transaction, and the counter's
/// `UPDATE ... RETURNING` was 4 % of a writing worker's time. The first update still takes the
/// counter row's lock (see `EventOutbox`), so with many writers numbers are still taken one
/// transaction at a time; later changes count on from it in memory, and `store` writes where they
/// got to before the transaction commits.
///
/// A change that fails rolls back to its savepoint, and `change` gives its numbers back with it.
/// When the failing change was the one whose update took the row (and, in PostgreSQL, its lock
/// with it), the next change that records events takes it again.
///
/// `@unchecked Sendable`: only the thread running the transaction touches it (it is a task-local
/// value only so that `EventOutbox.append` finds it).
final class EventNumbering: @unchecked Sendable {
    /// The numbering of the transaction whose change is running, for `EventOutbox.append`; set
    /// by `change` around each change.
    @TaskLocal static var current: EventNumbering?

    private struct State {
        /// The counter's value as this transaction has written it; nil until a change has taken
        /// the row.
        var stored: Int64?
        /// The last number handed out in this transaction.
        var last: Int64 = 0
    }

    private var state = State()

    /// Runs one change, in the savepoint `body` opens; if it throws, the numbers it took are
    /// handed out again.
    func change<T>(_ body: () throws -> T) throws -> T {
        let before = state
        do {
            return try Self.$current.withValue(self) { try body() }
        } catch {
            state = before
            throw error
        }
    }

    /// The first of `count` consecutive numbers for new events.
    func take(_ count: Int, _ session: any SQLSession) throws -> Int64 {
        guard state.stored != nil else {
            let first = try SequenceCounter.events.take(count, session)
            let last = first + Int64(count) - 1
            state = State(stored: last, last: last)
            return first
        }
        state.last += Int64(count)
        return state.last - Int64(count) + 1
    }

    /// Writes the last number handed out to the counter, when changes after the first took any.
    /// Runs after the transaction's changes, before its commit.
    func store(_ session: any SQLSession) throws {
        guard let stored = state.stored, state.last > stored else { return }
        try SequenceCounter.events.set(last: state.last, session)
        state.stored = state.last
    }
}
