/// Told of each change's transaction, so that the trace of the request that made the change
/// shows it: `begin` as the change asks for its transaction (its own, which it may share with
/// other threads' changes by group commit, or a `commitTogether` batch's), and the closure `begin`
/// returns once it has committed or failed. TallyStorage knows nothing of tracing; the worker's
/// tracing gives a store one (`TransactionTracing`), and a store without one checks one optional.
public protocol TransactionObserver: Sendable {
    /// `shared`: the change runs in a transaction `commitTogether` opened for a batch of requests,
    /// which commits after the batch's last change, not when this one ends.
    func begin(_ request: ChangeRequest, service: String, shared: Bool) -> @Sendable (_ failure: (any Error)?) -> Void
}
