import Foundation
import TallyLifecycle
import TallyTesting
import ZeroMQ
import Testing

/// `Process.runAlone()`: a child's exit is seen when it happens, however many other children are
/// being started on other threads at that moment (see its doc comment for the Foundation race
/// that hid a one-shot command's exit until a long-lived sibling's).
@Suite struct ChildProcessLaunchTests {
    @Test func oneShotExitsAreSeenWhileLongLivedSiblingsStartedBesideThemStillRun() async throws {
        let exited = Locked(0)
        let started = Locked<[Process]>([])
        // Eight threads starting short-lived children, and now and then a long-lived one, all at
        // once. The short ones live long enough (0.2 s) that the descriptors of the launches
        // under way pile up at the top of the table, where a listing taken a moment earlier
        // does not reach them. Without one launch at a time, a long-lived child inherits other
        // launches' ends of the socket that tells Foundation a child exited, and those exits are
        // not seen while it runs. (With 800 short children this failed every time; it is kept
        // smaller because Foundation's own listing of /proc/self/fd in Swift 6.3 reads past its
        // buffer, and can crash, once a process holds some 1,300 descriptors.)
        let threads = 8, rounds = 30
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<threads {
                group.addTask {
                    try await DedicatedThread.run(name: "test-launcher-\(index)") {
                        for round in 0..<rounds {
                            if round % 10 == 5 {
                                let sleeper = Process()
                                sleeper.executableURL = URL(fileURLWithPath: "/bin/sleep")
                                sleeper.arguments = ["600"]
                                try sleeper.runAlone()
                                started.withLock { $0.append(sleeper) }
                            }
                            let oneShot = Process()
                            oneShot.executableURL = URL(fileURLWithPath: "/bin/sleep")
                            oneShot.arguments = ["0.2"]
                            oneShot.terminationHandler = { _ in exited.withLock { $0 += 1 } }
                            try oneShot.runAlone()
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let sleepers = started.withLock { $0 }
        defer { for sleeper in sleepers where sleeper.isRunning { kill(sleeper.processIdentifier, SIGKILL) } }
        // A long guard: on a loaded machine starting 264 processes is slow, not wrong.
        try await waitUntil("all \(threads * rounds) one-shot children are seen to exit", timeout: .seconds(120)) {
            exited.withLock { $0 } == threads * rounds
        }
        #expect(sleepers.count == threads * rounds / 10)
        let stillRunning = sleepers.filter { $0.isRunning }.count
        #expect(stillRunning == sleepers.count, "the long-lived children still run, so none of them held an exit back")
    }
}

/// A value shared by the launching threads and the termination handlers.
private final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) -> T) -> T { lock.withLock { body(&value) } }
}
