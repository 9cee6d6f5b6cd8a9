import Foundation
import ServiceLifecycle

/// Returns (which, as a service with `successTerminationBehavior: .gracefullyShutdownGroup`,
/// stops the process gracefully) once the process that started this one has exited: a child of
/// `tally up`, of a test or of `tally-bench` never outlives its parent.
///
/// Why poll `getppid()`: a child whose parent died is adopted by another process, so its parent
/// id changes; Linux's `PR_SET_PDEATHSIG` would say so with a signal, but follows the thread that
/// started the child, not the process, and the parents here start children from any thread.
public struct ParentWatchdog: Service {
    let parent: Int32

    public init(parent: Int32) {
        self.parent = parent
    }

    /// The parent a supervisor names in `TALLY_PARENT_PID`, or nil when none does.
    public static var parentFromEnvironment: Int32? {
        ProcessInfo.processInfo.environment["TALLY_PARENT_PID"].flatMap { Int32($0) }
    }

    public func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            if getppid() != parent { return }
            try? await Task.sleep(for: .milliseconds(250))
        }
    }
}
