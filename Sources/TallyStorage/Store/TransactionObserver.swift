/// Told of each change's transaction, so that the trace of the request that made the change
/// shows it: `begin` as the change asks for its transaction (its own, which it may share with
/// other threads' changes by group commit, or a `commitTogether` batch's), and the closure `begin`
/// returns once the transaction holding it has committed (its log synced, with `Durability.disk`)
/// or failed. TallyStorage knows nothing of tracing; the worker's tracing gives a store one
/// (`TransactionTracing`), and a store without one checks one optional.
public protocol TransactionObserver: Sendable {
    /// `shared`: the change runs in a transaction `commitTogether` opened for a batch of requests,
    /// which commits after the batch's last change.
    func begin(_ request: ChangeRequest, service: String, shared: Bool) -> @Sendable (TransactionOutcome) -> Void
}

/// How the transaction holding a change ended.
public struct TransactionOutcome: Sendable {
    /// The change's own error (its savepoint rolled back), or the commit's; nil once committed.
    public let failure: (any Error)?
    /// The changes the transaction held, this one among them: the group commit it joined. 0 when
    /// the change failed before its transaction was known.
    public let changes: Int
}
