/// The moment past which the database work of the request being handled is of no use: its
/// client, and the gateway, have given up on it.
///
/// The worker sets it around each request (from the envelope's `deadline_ms`), and around a
/// transaction shared by several, the latest of theirs. An engine that can bound its statements
/// reads it when a transaction begins: PostgreSQL sets the transaction's `statement_timeout` to
/// what is left (never above the configured one), and refuses to begin once it has passed, so a
/// request that was given up on does not hold a connection and its locks for the full timeout.
/// SQLite's statements are local and short, and it ignores it.
public enum StorageDeadline {
    @TaskLocal public static var current: ContinuousClock.Instant?

    /// The latest of `deadlines`, or nil (no bound) when any of them is nil: work shared by
    /// several requests is bounded only as much as the most patient of them allows.
    public static func latest(_ deadlines: [ContinuousClock.Instant?]) -> ContinuousClock.Instant? {
        var latest: ContinuousClock.Instant?
        for deadline in deadlines {
            guard let deadline else { return nil }
            latest = max(latest ?? deadline, deadline)
        }
        return latest
    }
}
