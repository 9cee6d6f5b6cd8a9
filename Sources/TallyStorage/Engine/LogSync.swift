import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Puts a SQLite database's commits on the disk after they are made, outside the write lock:
/// `Durability.disk` for SQLite.
///
/// Why not `synchronous = FULL`: it syncs the write-ahead log inside each commit, while the
/// commit holds the database's one write lock, so the next transaction (the next batch of a group
/// commit, another worker thread's) waits for the disk before it can even begin. Here the writer
/// commits with `synchronous = NORMAL` (the log written, not synced), lets the next transaction
/// begin, and then syncs the log (`fdatasync`) before anything of the commit is answered or
/// published: the next batch's work overlaps this one's sync, and one sync covers every commit
/// made before it began, so commits that end together share it.
///
/// What holds: a commit is answered only after a sync that began after it committed, so an
/// answered change survives a power cut, as under FULL. The log is written in commit order, so a
/// later commit on the disk means every earlier one is too: a change that read an unsynced one
/// is answered after its own sync, which covers both. Reads of this process wait for the commits
/// they may have seen (`SQLiteEngine.read`). A checkpoint syncs the log before it copies it (SQLite
/// does, under NORMAL), so a commit the log no longer holds is in the database file, synced.
final class LogSync: Sendable {
    private let descriptor: Int32
    private let location: String
    private let state = Mutex(Progress())
    /// One sync at a time: a caller that waited finds its commit covered by the one before.
    private let syncing = NSLock()

    private struct Progress {
        /// The last number handed to a transaction about to commit.
        var numbered: UInt64 = 0
        /// Every transaction numbered up to this has committed or rolled back.
        var ended: UInt64 = 0
        /// Every commit numbered up to this is on the disk.
        var synced: UInt64 = 0
        /// `fdatasync` calls made.
        var syncs = 0
    }

    /// Opens the log (`<database>-wal`) to sync it, and syncs its directory once, so that a log
    /// SQLite has just made is still there after a power cut.
    init(logPath: String, location: String) throws {
        self.location = location
        // Created here if SQLite has not yet (it takes an empty log for none), private as the
        // database is; SQLite opens the same file.
        descriptor = open(logPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw StorageFailure(location: location, detail: "cannot open the write-ahead log to sync it: \(String(cString: strerror(errno)))")
        }
        let directory = open(URL(fileURLWithPath: logPath).deletingLastPathComponent().path, O_RDONLY | O_CLOEXEC)
        if directory >= 0 {
            _ = fsync(directory)
            close(directory)
        }
    }

    deinit {
        close(descriptor)
    }

    /// Numbers the transaction about to commit (called inside it, once its work is done): a reader
    /// that sees its commit finds `latest` at least this.
    func number() -> UInt64 {
        state.withLock { progress in
            progress.numbered += 1
            return progress.numbered
        }
    }

    /// The transaction numbered `number` has committed or rolled back: nothing of it is left to
    /// write. Transactions of one database end in number order (the write lock), so every lower
    /// number has ended too.
    func ended(_ number: UInt64) {
        state.withLock { $0.ended = max($0.ended, number) }
    }

    /// The last number handed out.
    var latest: UInt64 { state.withLock { $0.numbered } }

    /// Every commit numbered up to this is on the disk.
    var synced: UInt64 { state.withLock { $0.synced } }

    /// `fdatasync` calls made so far: with `latest`, how many commits a sync covers.
    var syncs: Int { state.withLock { $0.syncs } }

    /// Returns once every commit numbered up to `number` is on the disk. Without waiting when a
    /// sync since has covered it; otherwise one `fdatasync` covers every commit ended by then.
    func sync(through number: UInt64) throws {
        if state.withLock({ $0.synced >= number }) { return }
        syncing.lock()
        defer { syncing.unlock() }
        while true {
            let (covered, ended) = state.withLock { ($0.synced >= number, $0.ended) }
            if covered { return }
            if ended >= number {
                guard fdatasync(descriptor) == 0 else {
                    let reason = String(cString: strerror(errno))
                    throw StorageFailure(location: location, detail: "the write-ahead log could not be synced to the disk (\(reason)): what it holds may not survive a power cut")
                }
                state.withLock {
                    $0.synced = max($0.synced, ended)
                    $0.syncs += 1
                }
                return
            }
            // Only a reader gets here: it saw commit `number`, whose writer is between its commit
            // and `ended` (microseconds).
            sched_yield()
        }
    }
}
