import Foundation
import GRDB
import ServiceLifecycle

/// Copies a SQLite database's write-ahead log back into the database file on a thread of its
/// own, so that no commit waits for it.
///
/// Why: by default SQLite checkpoints inside the commit that takes the log past 1,000 pages, and
/// that commit (with every change of a shared transaction in it) then waits for the pages to be
/// written and the database file to be synced: a few percent of a writing worker's time, and the
/// slowest commits. The engine's connections turn that off (`wal_autocheckpoint = 0`) and this
/// runs a PASSIVE checkpoint from a connection of its own instead, which never blocks writers or
/// readers: it copies what no reader still needs, and the writer starts the log again from the
/// top once all of it has been copied. Durability does not depend on it: a commit is in the log
/// before it is answered (synced there too, under `Durability.disk`: see `LogSync`), and under
/// `Durability.process` (`synchronous = NORMAL`) the log reaches the disk at checkpoints, which
/// come at least every second while there are commits.
///
/// It checkpoints once `commitsPerCheckpoint` commits have been noted, or a second after the last
/// checkpoint when any commit was; several processes on one file each run one, and a checkpoint
/// that finds another running skips its turn.
///
/// It is a service of the process's group (the engine's `backgroundServices`), so it starts
/// before the workers that write and stops after them, with a last checkpoint. While it does not
/// run (a short open by `tally backup` or `migrate-data`, a test, the benchmark's bare loop) the
/// writer checkpoints as SQLite does by default, in the commit that takes the log past 1,000
/// pages, so the log stays bounded with no thread of its own; `run()` turns that off for as long
/// as it runs, and back on when it stops.
///
/// Under steady writes a PASSIVE checkpoint alone lets the log grow without bound: writers append
/// while it copies and syncs, so the log is never found wholly copied, which is when SQLite starts
/// it again from the top (under `tally-bench`, 150 to 320 MB per service within seconds). A pause
/// in the writing longer than a checkpoint (tens of milliseconds) lets it start again; steady load
/// without one does not. So once the log holds `restartPages`, the passive checkpoint is followed
/// by a RESTART one: it copies what the passive one left and syncs, holding writers off meanwhile
/// (10 to 20 ms on a quiet disk here, 30 to 90 under `tally-bench`'s load), and has the next
/// writer start the log from the top. Why so many pages before it (512 MiB by default): each
/// restart holds every writer off that long; at 16 MiB they came several times a second under
/// load and put event → alert's p99 at 60 to 90 ms. It waits at most `restartWait` for the writer
/// and for readers of the old log, and otherwise leaves it for its next turn.
public final class WALCheckpointer: Service, @unchecked Sendable {
    /// Commits after which a checkpoint is due without waiting for the second to pass.
    static let commitsPerCheckpoint = 200
    /// How long a restarting checkpoint waits for the writer and for readers of the old log. It
    /// holds new writers off while it waits, so it is short.
    static let restartWait: Duration = .milliseconds(250)
    /// SQLite's own default: the commit that takes the log past this many pages checkpoints.
    static let automaticCheckpointPages = 1000

    private let path: String
    private let configuration: Configuration
    /// The engine's pool, whose one writer connection is the only one that commits: where the
    /// automatic checkpoint is turned off and on.
    private let writer: DatabasePool
    /// Pages in the log from which a checkpoint has it started again.
    private let restartPages: Int
    private let condition = NSCondition()
    private var commits = 0
    private var stopped = false

    init(path: String, configuration: Configuration, writer: DatabasePool, restartPages: Int) {
        self.path = path
        var configuration = configuration
        configuration.label = "\(configuration.label ?? "database") checkpoints"
        self.configuration = configuration
        self.writer = writer
        self.restartPages = restartPages
    }

    /// Counts a commit; wakes the thread once enough have been counted.
    func noteCommit() {
        condition.lock()
        commits += 1
        if commits >= Self.commitsPerCheckpoint { condition.signal() }
        condition.unlock()
    }

    /// Checkpoints on a thread of its own until the task is cancelled or the group shuts down,
    /// then once more, and hands checkpointing back to the writer's commits.
    public func run() async throws {
        let database = try open()
        restart()
        try setAutomaticCheckpoint(pages: 0)
        defer { try? setAutomaticCheckpoint(pages: Self.automaticCheckpointPages) }
        await withGracefulShutdownHandler {
            await withTaskCancellationHandler {
                await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
                    let thread = Thread { [self] in
                        loop(database)
                        finished.resume()
                    }
                    thread.name = configuration.label
                    thread.start()
                }
            } onCancel: {
                stop()
            }
        } onGracefulShutdown: {
            self.stop()
        }
    }

    /// The connection checkpoints run on, opened with the engine's busy timeout; from then on only
    /// a RESTART checkpoint waits (PASSIVE never does), and for no longer than `restartWait`.
    private func open() throws -> DatabaseQueue {
        let database = try DatabaseQueue(path: path, configuration: configuration)
        let wait = Self.restartWait.components
        let waitMilliseconds = wait.seconds * 1000 + wait.attoseconds / 1_000_000_000_000_000
        try database.writeWithoutTransaction { try $0.execute(sql: "PRAGMA busy_timeout = \(waitMilliseconds)") }
        return database
    }

    private func setAutomaticCheckpoint(pages: Int) throws {
        try writer.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_autocheckpoint = \(pages)") }
    }

    /// Forgets a stop from an earlier run, and the commits counted while the writer still
    /// checkpointed them itself.
    private func restart() {
        condition.lock()
        stopped = false
        commits = 0
        condition.unlock()
    }

    private func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    private func loop(_ database: DatabaseQueue) {
        while true {
            condition.lock()
            let wakeAt = Date(timeIntervalSinceNow: 1)
            while !stopped, commits < Self.commitsPerCheckpoint, condition.wait(until: wakeAt) {}
            let due = commits > 0
            let stopping = stopped
            commits = 0
            condition.unlock()
            if due { checkpoint(database) }
            if stopping { return }
        }
    }

    private func checkpoint(_ database: DatabaseQueue) {
        // PASSIVE never waits on a lock; a busy database (another process checkpointing) or a
        // failure leaves the log for the next turn, and readers and writers are unaffected. The
        // frame counts it returns are of the log as it found it, not of what was added meanwhile.
        guard let (logFrames, _) = try? database.writeWithoutTransaction({ db in try db.checkpoint(.passive) }),
            logFrames >= restartPages
        else { return }
        // A failure (busy past `restartWait`) leaves the log for the next turn.
        _ = try? database.writeWithoutTransaction { db in try db.checkpoint(.restart) }
    }
}
