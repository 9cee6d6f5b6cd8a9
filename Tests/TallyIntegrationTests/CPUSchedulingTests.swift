import Foundation
import TallyTesting
import Testing

/// `--cpu-scheduling`: server processes run every thread as `SCHED_BATCH` unless told otherwise.
@Suite struct CPUSchedulingTests {
    @Test func aGatewayAndAWorkerRunEveryThreadAsBatchByDefault() async throws {
        try await TallyStack.with(workers: [:]) { stack in
            let worker = try stack.startWorker("calc", concurrency: 2)
            try await worker.waitUntilReady()
            for process in [stack.gateway!, worker] {
                let policies = Self.threadPolicies(of: process.pid)
                // The main thread, the socket threads, libzmq's I/O threads and the concurrency pool's.
                #expect(policies.count >= 3, "\(process.name): \(policies)")
                #expect(policies.allSatisfy { $0 == Self.batch }, "\(process.name): \(policies)")
            }
        }
    }

    @Test func normalLeavesThreadsAsTheyStarted() async throws {
        try await TallyStack.with(workers: [:]) { stack in
            let worker = try stack.startWorker("calc", extraArguments: ["--cpu-scheduling", "normal"])
            try await worker.waitUntilReady()
            let policies = Self.threadPolicies(of: worker.pid)
            #expect(!policies.isEmpty && policies.allSatisfy { $0 == Self.normal }, "\(policies)")
        }
    }

    @Test func anUnknownSettingIsRefusedBeforeStarting() async throws {
        try await TallyStack.with(workers: [:]) { stack in
            let worker = try stack.launch(
                "calc", ["worker", "calc", "--backend", "ipc:///nonexistent/backend"], environment: ["TALLY_CPU_SCHEDULING": "fast"])
            #expect(await worker.waitForExit(timeout: .seconds(60)))
            #expect(worker.exitStatus != 0)
            #expect(worker.log.contains("TALLY_CPU_SCHEDULING must be batch or normal; got 'fast'"), "\(worker.log)")
        }
    }

    /// `SCHED_OTHER` and `SCHED_BATCH` in `<sched.h>`.
    static let normal = 0
    static let batch = 3

    /// The scheduling policy of each thread of `pid`: field 41 of `/proc/PID/task/TID/stat`, counted
    /// after the parenthesized command name (which may hold spaces).
    static func threadPolicies(of pid: Int32) -> [Int] {
        let tasks = URL(fileURLWithPath: "/proc/\(pid)/task")
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: tasks.path)) ?? []
        return threads.compactMap { thread in
            guard let stat = try? String(contentsOf: tasks.appendingPathComponent("\(thread)/stat"), encoding: .utf8),
                let end = stat.lastIndex(of: ")")
            else { return nil }  // ended meanwhile
            let fields = stat[stat.index(after: end)...].split(separator: " ")
            return fields.count > 38 ? Int(fields[38]) : nil
        }
    }
}
