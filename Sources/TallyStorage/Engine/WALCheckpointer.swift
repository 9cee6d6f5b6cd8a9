import Foundation
import GRDB

/// Copies a SQLite database's write-ahead log back into the database file on a thread of its
/// own, so that no commit waits for it.
///
/// Why: by default SQLite checkpoints inside the commit that takes the log past 1,000 pages, and
/// that commit (with every change of a shared transaction in it) then waits for the pages to be
/// written and the database file to be synced: a few percent of a writing worker's time, and the
/// slowest commits. The engine's connections turn that off (`wal_autocheckpoint = 0`) and this
/// runs a PASSIVE checkpoint from a connection of its own instead, which never blocks writers or
/// readers: it copies what no reader still needs, and the writer starts the log again from the
/// top once all of it has been copied. Durability is unchanged: as before, a commit is in the log
/// before it is answered, which a crash of the process cannot undo, and with GRDB's WAL setting
/// (`synchronous = NORMAL`) the log reaches the disk at checkpoints, which now come at least
/// every second while there are commits.
///
/// It checkpoints once `commitsPerCheckpoint` commits have been noted, or a second after the last
/// checkpoint when any commit was; several processes on one file each run one, and a checkpoint
/// that finds another running skips its turn.
final class WALCheckpointer: @unchecked Sendable {
    /// Commits after which a checkpoint is due without waiting for the second to pass.
    static let commitsPerCheckpoint = 200

    private let database: DatabaseQueue
    private let condition = NSCondition()
    private var commits = 0
    private var stopped = false
    private let finished = DispatchSemaphore(value: 0)

    init(path: String, configuration: Configuration) throws {
        var configuration = configuration
        configuration.label = "\(configuration.label ?? "database") checkpoints"
        database = try DatabaseQueue(path: path, configuration: configuration)
        let thread = Thread { [self] in run() }
        thread.name = configuration.label
        thread.start()
    }

    /// Counts a commit; wakes the thread once enough have been counted.
    func noteCommit() {
        condition.lock()
        commits += 1
        if commits >= Self.commitsPerCheckpoint { condition.signal() }
        condition.unlock()
    }

    /// Stops the thread after a last checkpoint, and waits for it.
    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
        finished.wait()
    }

    private func run() {
        defer { finished.signal() }
        while true {
            condition.lock()
            let wakeAt = Date(timeIntervalSinceNow: 1)
            while !stopped, commits < Self.commitsPerCheckpoint, condition.wait(until: wakeAt) {}
            let due = commits > 0
            let stopping = stopped
            commits = 0
            condition.unlock()
            if due { checkpoint() }
            if stopping { return }
        }
    }

    private func checkpoint() {
        // PASSIVE never waits on a lock; a busy database (another process checkpointing) or a
        // failure leaves the log for the next turn, and readers and writers are unaffected.
        _ = try? database.writeWithoutTransaction { db in try db.checkpoint(.passive) }
    }
}
