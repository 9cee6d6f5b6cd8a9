import Foundation
import TallyLifecycle

/// A `tally` child process started for a test, with its output kept in a log file and its
/// readiness heard through its own notification socket (`NOTIFY_SOCKET`, as systemd would).
public final class TallyProcess: @unchecked Sendable {
    public let name: String
    public let arguments: [String]
    public let logFile: URL
    public let pid: Int32
    private let listener: ReadinessListener
    /// What the process said about itself, and its exit status once it has exited.
    private let observed = Awaitable(Observed())

    struct Observed: Sendable {
        var readiness = ReadinessState()
        var exitStatus: Int32?
    }

    /// Starts `executable` with `arguments`, its output and errors in `logFile`, its readiness
    /// heard on a socket made at `notifySocket`, in this process's environment with `extra` on top
    /// and `input` (when given) as its standard input. `TallyStack` starts `tally` with it;
    /// `tally-bench` starts its bare relay's processes.
    public init(
        name: String, executable: URL, arguments: [String], logFile: URL, notifySocket: String, environment extra: [String: String] = [:],
        input: Data? = nil
    ) throws {
        self.name = name
        self.arguments = arguments
        self.logFile = logFile
        let observed = observed
        listener = try ReadinessListener(socketPath: notifySocket) { state in
            observed.update { $0.readiness = state }
        }
        var environment = ProcessInfo.processInfo.environment
        // The child stops by itself if the test process dies, so no stray process outlives a run.
        environment["TALLY_PARENT_PID"] = "\(getpid())"
        environment["NOTIFY_SOCKET"] = notifySocket
        environment.merge(extra) { _, new in new }
        // Standard input from a file: what a command reads is all there before it starts.
        var inputFile: String?
        if let input {
            inputFile = logFile.appendingPathExtension("stdin").path
            try input.write(to: URL(fileURLWithPath: inputFile!))
        }
        do {
            pid = try ChildSpawn.start(
                [executable.path] + arguments, environment: environment, input: inputFile, output: logFile.path)
        } catch {
            listener.close()
            throw error
        }
        let pid = pid
        let listener = listener
        // A thread of its own waits for the exit, off the concurrency pool.
        Thread.detachNewThread {
            let ended = ChildSpawn.wait(for: pid)
            // Read what the child sent before it died first, so a READY just before an exit counts.
            listener.close()
            observed.update { $0.exitStatus = ended.status }
        }
    }

    deinit { listener.close() }

    public var isRunning: Bool { observed.value.exitStatus == nil }
    public var exitStatus: Int32? { observed.value.exitStatus }
    /// What the process last said about itself (`READY=1`, its `STATUS=` line).
    public var readiness: ReadinessState { observed.value.readiness }

    /// What the process has logged so far.
    public var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

    /// One line on what the process is doing, for failure messages.
    public var summary: String {
        let state = observed.value
        let life = state.exitStatus.map { "exited with status \($0)" } ?? "running (pid \(pid))"
        let ready = state.readiness.isReady ? "ready" : "not ready"
        return "\(name): \(life), \(ready), status: \(state.readiness.status ?? "none reported")"
    }

    /// Waits until the process says it is ready (`READY=1`): a gateway has bound its sockets, a
    /// worker process has every thread registered with the gateway (each gateway it was given), a notifier has bound its
    /// sockets and its `alerts` worker is registered, `tally watch` knows where it starts.
    /// Fails at once if the process exits first. The timeout is only a guard against a process
    /// that hangs; it is long, because a busy machine makes readiness late, not wrong.
    public func waitUntilReady(timeout: Duration = .seconds(120)) async throws {
        let outcome = await observed.wait(until: { $0.readiness.isReady || $0.exitStatus != nil }, timeout: timeout)
        if outcome?.readiness.isReady == true { return }
        throw StackError.notReady(process: summary, waited: timeout, log: log)
    }

    /// Waits until the process sends a status line (`STATUS=`), and returns it: how a child that
    /// binds ports of the system's choosing says where it listens, before it is ready. Fails at
    /// once if the process exits first; the timeout guards, as `waitUntilReady`'s does.
    public func waitForStatus(timeout: Duration = .seconds(120)) async throws -> String {
        let outcome = await observed.wait(until: { $0.readiness.status != nil || $0.exitStatus != nil }, timeout: timeout)
        if let status = outcome?.readiness.status { return status }
        throw StackError.notReady(process: summary, waited: timeout, log: log)
    }

    public func signal(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    /// Kills the process at once, as a crash would, and waits until it is gone.
    public func kill9() async {
        signal(SIGKILL)
        _ = await waitForExit(timeout: .seconds(60))
    }

    /// Waits for the process to end; returns false if it was still running at the timeout.
    public func waitForExit(timeout: Duration) async -> Bool {
        await observed.wait(until: { $0.exitStatus != nil }, timeout: timeout) != nil
    }

    /// SIGTERM, then SIGKILL if it has not stopped within `grace`. Returns whether it stopped gracefully.
    @discardableResult
    public func stop(grace: Duration = .seconds(30)) async -> Bool {
        signal(SIGTERM)
        if await waitForExit(timeout: grace) { return true }
        await kill9()
        return false
    }
}
