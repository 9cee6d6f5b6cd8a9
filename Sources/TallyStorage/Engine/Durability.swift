/// When a change is answered, relative to when it is on the disk: what a crash can take back.
///
/// A money service answers a write only once it would survive a power cut, as PostgreSQL does by
/// default; so Tally does too, by default. Group commit (`GroupCommit`) is what makes that
/// affordable: the changes that arrive together share one commit, so they share one sync.
public enum Durability: String, Sendable, CaseIterable {
    /// Every answered change is on the disk: its commit's log was synced before the answer.
    /// Survives a killed process, a power cut and a kernel crash. SQLite: the write-ahead log
    /// synced after each commit, outside the write lock, before anything of the commit is
    /// answered or published (`LogSync`); PostgreSQL: `synchronous_commit = on` (the server's
    /// default).
    case disk
    /// Every answered change has been handed to the operating system (SQLite) or the database
    /// server (PostgreSQL), which writes it to the disk soon after. Survives a killed worker;
    /// a power cut or a kernel crash (on PostgreSQL, a crash of the server) may take back the
    /// last second or so of answered changes. SQLite: `synchronous = NORMAL` in WAL mode;
    /// PostgreSQL: `synchronous_commit = off`. Faster where the disk's sync is slow.
    case process
}
