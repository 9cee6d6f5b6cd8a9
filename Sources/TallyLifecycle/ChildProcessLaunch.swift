import Foundation
import Synchronization

extension Process {
    /// Starts the process while no other thread of this process is starting one: how `tally up`'s
    /// supervisor starts its children. (The tests start theirs with `TallyTesting.ChildSpawn`,
    /// which avoids both problems below.)
    ///
    /// Why: on Linux, Foundation learns that a child has exited when a socket it shares with that
    /// child reads end of file, so the child's end must live in that child alone. But `run()`
    /// makes that socket pair without close-on-exec and keeps it from other children only by
    /// listing the descriptors open when *it* starts and closing those in the child. A second
    /// `run()` on another thread at the same moment makes a pair after that listing, and its child
    /// end is inherited by the first child too. When the first child lives long (a gateway, a
    /// worker) and the second is a one-shot command, the one-shot's exit goes unnoticed until the
    /// long-lived one exits: a test waited 90 s for a `tally keys signing` that had long finished,
    /// and `tally up` would not have restarted a child that crashed. One launch at a time leaves
    /// no pair of another launch open to be inherited: each is closed in this process before
    /// `run()` returns. (Eight threads starting 800 children of 0.5 s, a long-lived one every
    /// tenth, reproduced it every time with plain `run()`, never with this. That test is not in
    /// the suite: Swift 6.3's Foundation reads past its buffer listing /proc/self/fd once a
    /// process holds some 1,300 descriptors, and crashes in `run()`, and such a test takes the
    /// test process there.)
    public func runAlone() throws {
        try launching.withLock { _ in try run() }
    }

    /// Starts the process as `runAlone` does, its standard output and error on a new pipe made
    /// under the same lock, and returns the pipe (this process keeps its read end only). A pipe
    /// made outside it could be inherited the same way by a child started at that moment, which
    /// would hold its write end open: the reader would see end of file only when that other
    /// child exits, and `tally up` would wait for a failed child's last lines for ever.
    public func runAloneWithOutputPipe() throws -> Pipe {
        try launching.withLock { _ in
            let output = Pipe()
            standardOutput = output
            standardError = output
            try run()
            return output
        }
    }
}

/// Held while one `Process.run()` is under way in this process.
private let launching = Mutex<Void>(())
