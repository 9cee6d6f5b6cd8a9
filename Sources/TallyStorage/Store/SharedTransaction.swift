import TallyProtocol

/// One write transaction that a thread holds open while it runs several changes of one store:
/// group commit for the requests that reached one worker thread together.
///
/// Why: a worker thread takes up to 16 requests from the gateway at once (`WorkerConfiguration.
/// capacity`) and runs them one after another. Through `GroupCommit` alone, each of its changes
/// would wait for a commit of its own before the next could start, so a transaction would hold
/// only the changes of different threads (one or two). Instead the thread opens one transaction
/// (`ServiceStore.commitTogether`), runs every change it holds in it, each in its own savepoint,
/// commits once, and only then answers them all.
///
/// While it is open, `ServiceStore.change` on this thread (found through a task-local value,
/// which outside a task is the thread's own) runs in it instead of queueing for a commit. Only
/// the thread that opened it ever touches it.
final class SharedTransaction: @unchecked Sendable {
    @TaskLocal static var current: SharedTransaction?

    /// The store whose changes join; a change of another store runs on its own.
    let store: ServiceStore
    let session: any SQLSession
    /// What each change that succeeded does after the commit (publish its events), in order.
    private(set) var afterCommit: [@Sendable () -> Void] = []
    /// Changes run in the transaction so far (each in a savepoint, kept or rolled back).
    private(set) var changes = 0
    /// The event numbers its changes take.
    let numbering = EventNumbering()
    /// Told once the transaction has committed or failed to (`TransactionObserver`), in order.
    private(set) var whenCommitted: [@Sendable (TransactionOutcome) -> Void] = []

    func whenCommitted(_ observer: @escaping @Sendable (TransactionOutcome) -> Void) {
        whenCommitted.append(observer)
    }

    func tellObservers(failure: (any Error)?) {
        for observer in whenCommitted { observer(TransactionOutcome(failure: failure, changes: changes)) }
        whenCommitted = []
    }

    init(store: ServiceStore, session: any SQLSession) {
        self.store = store
        self.session = session
    }

    /// Runs one change in a savepoint of its own: if it throws, only it is undone.
    func run<T>(_ work: (any SQLSession) throws -> (value: T, afterCommit: (@Sendable () -> Void)?)) throws -> T {
        changes += 1
        let (value, action) = try numbering.change { try session.savepoint { try work(session) } }
        if let action { afterCommit.append(action) }
        return value
    }
}

extension ServiceStore {
    /// Runs `body`, in which this thread's `change` calls on this store share one transaction,
    /// committed when `body` returns. Returns nil once it has committed and is on the disk (and
    /// the changes' events have been handed to the sink), or the error that kept it from
    /// committing: then none of the changes made in `body` took effect, and their callers must be
    /// told so. (A sync that fails after the commit is reported too: then the changes may or may
    /// not survive a power cut, and a retry with the key finds out.)
    ///
    /// `body` runs inside the transaction, so it must not open another write of this store's
    /// engine directly (a query that writes, as `shopping.get_list` does, runs outside), and it
    /// should do little besides its changes: other writers wait for it. An engine that retries a
    /// transaction (PostgreSQL's serialization failures) runs `body` again.
    public func commitTogether(_ body: () -> Void) -> (any Error)? {
        let started = ContinuousClock.now
        // The last attempt's (an engine may run `body` again), whose observers hear the outcome.
        var attempt: SharedTransaction?
        do {
            try commits.commitInOrder(on: engine) { session in
                let shared = SharedTransaction(store: self, session: session)
                attempt = shared
                SharedTransaction.$current.withValue(shared) { body() }
                try shared.numbering.store(session)
                return shared
            } whenDurable: { shared in
                commits.record(changes: shared.changes, since: started)
                shared.tellObservers(failure: nil)
                for action in shared.afterCommit { action() }
            }
            return nil
        } catch {
            commits.recordFailure(error)
            attempt?.tellObservers(failure: error)
            return error
        }
    }
}
