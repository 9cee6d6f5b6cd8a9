import Foundation
import Logging
import ServiceLifecycle
import TallyLifecycle
import ZeroMQ

/// One child process of `tally up`: a name for its log prefix and the `tally` arguments to run.
public struct ChildSpec: Sendable {
    public let name: String
    public let arguments: [String]

    public init(name: String, arguments: [String]) {
        self.name = name
        self.arguments = arguments
    }
}

/// Keeps `tally up`'s children running: starts each, prefixes its output with its name, restarts
/// it with backoff when it dies, and on shutdown stops them in two steps: the gateway first, so it
/// drains (answers what it accepted, refuses new requests) while the workers are still there to
/// answer, then everything else; each step SIGTERM, then SIGKILL after a grace period.
///
/// Each child reports its readiness on a notification socket of its own (sd_notify), in
/// `runtimeDirectory`; `tally up` is ready, and says so to its own supervisor, once every child is.
///
/// A child that exits `startAttempts` times in a row without having become ready cannot start
/// (its port is taken, its database refused it): restarting it again would only hide that, so
/// the supervisor stops the others and fails with what the child said last (`ChildStartFailure`),
/// and `tally up` exits non-zero. A child that was ready and dies is restarted, as before.
public final class ProcessSupervisor: Service, @unchecked Sendable {
    private let children: [ChildSpec]
    /// Set in every child's environment on top of this process's own (settings, such as a
    /// database URL that may hold a password, that stay out of the children's argument lists
    /// and so out of `ps`).
    private let environment: [String: String]
    private let logger: Logger
    private let executable: String
    private let runtimeDirectory: String
    private let readiness: Readiness
    private let gracePeriod: Duration = .seconds(10)
    /// Exits in a row before readiness after which a child counts as unable to start: more than
    /// one, so a restart that loses a race (a port not yet released) gets another try.
    static let startAttempts = 3
    private let lock = NSLock()
    /// The pid of each child while it runs: removed, under the lock, as soon as it is reaped, so
    /// a signal is never sent to a pid the system may have given to another process since.
    private var running: [String: pid_t] = [:]
    private var stopping = false

    public init(children: [ChildSpec], environment: [String: String] = [:], runtimeDirectory: String, readiness: Readiness, logger: Logger) {
        self.environment = environment
        self.children = children
        self.logger = logger
        self.runtimeDirectory = runtimeDirectory
        self.readiness = readiness
        self.executable = Bundle.main.executablePath ?? CommandLine.arguments[0]
    }

    public func run() async throws {
        try FileManager.default.createDirectory(atPath: runtimeDirectory, withIntermediateDirectories: true)
        let failure = await withGracefulShutdownHandler {
            await withTaskGroup(of: ChildStartFailure?.self) { group -> ChildStartFailure? in
                let width = children.map(\.name.count).max() ?? 0
                for child in children {
                    group.addTask { await self.keepRunning(child, prefix: child.name.padding(toLength: width, withPad: " ", startingAt: 0) + " | ") }
                }
                for await case let failure? in group {
                    // The others stop, and the group waits for them before this returns.
                    self.stopAll()
                    return failure
                }
                return nil
            }
        } onGracefulShutdown: {
            self.stopAll()
        }
        logger.info("all processes stopped")
        if let failure { throw failure }
    }

    private var isStopping: Bool { lock.withLock { stopping } }

    /// Runs `child` until shutdown, restarting it when it dies; returns why it cannot start when
    /// it exits `startAttempts` times in a row before it is ready.
    private func keepRunning(_ child: ChildSpec, prefix: String) async -> ChildStartFailure? {
        var delay: Duration = .milliseconds(500)
        var exitsBeforeReady = 0
        while !isStopping {
            let started = ContinuousClock.now
            let run: ChildRun
            do {
                run = try await runOnce(child, prefix: prefix)
            } catch {
                logger.error("could not start", metadata: ["process": "\(child.name)", "error": "\(error)"])
                run = ChildRun(status: -1, becameReady: false, lastLines: ["\(error)"])
            }
            if isStopping { break }
            exitsBeforeReady = run.becameReady ? 0 : exitsBeforeReady + 1
            if exitsBeforeReady == Self.startAttempts {
                return ChildStartFailure(child: child.name, status: run.status, attempts: exitsBeforeReady, lastLines: run.lastLines)
            }
            if ContinuousClock.now - started > .seconds(30) { delay = .milliseconds(500) }
            logger.warning("process exited; restarting", metadata: ["process": "\(child.name)", "status": "\(run.status)", "in": "\(delay)"])
            // Sleep in slices so a shutdown during a long backoff is not kept waiting.
            let restartAt = ContinuousClock.now + delay
            while !isStopping && ContinuousClock.now < restartAt { try? await Task.sleep(for: .milliseconds(100)) }
            delay = min(delay * 2, .seconds(30))
        }
        return nil
    }

    /// Starts `child` and waits until it exits and its output has been read to the end.
    private func runOnce(_ child: ChildSpec, prefix: String) async throws -> ChildRun {
        let reporter = readiness.reporter(for: child.name)
        reporter.notReady("\(child.name): starting")
        let listener = try ReadinessListener(socketPath: "\(runtimeDirectory)/\(child.name).notify") { state in
            let status = state.status ?? child.name
            if state.isReady && !state.isStopping { reporter.ready(status) } else { reporter.notReady(status) }
        }
        defer { listener.close() }
        var environment = ProcessInfo.processInfo.environment.merging(self.environment) { $1 }
        environment["TALLY_PARENT_PID"] = "\(getpid())"
        environment["NOTIFY_SOCKET"] = listener.socketPath
        let (pid, output) = try lock.withLock {
            guard !stopping else { throw CancellationError() }
            let started = try ChildSpawn.startWithOutputPipe([executable] + child.arguments, environment: environment)
            running[child.name] = started.pid
            return started
        }
        let prefixer = LinePrefixer(prefix: prefix)
        let (drained, outputEnded) = AsyncStream<Never>.makeStream()
        // Its output, read to the end on a thread of its own (a blocking read), then closed.
        let reader = Thread {
            var buffer = [UInt8](repeating: 0, count: 16 << 10)
            while true {
                let count = read(output, &buffer, buffer.count)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                prefixer.write(Data(buffer[0..<count]))
            }
            close(output)
            prefixer.flush()
            outputEnded.finish()
        }
        reader.name = "\(child.name) output"
        reader.start()
        // waitpid blocks: on a thread of its own, not the concurrency pool's.
        let ended = try await DedicatedThread.run(name: "\(child.name) exit") { [self] in
            let ended = ChildSpawn.wait(for: pid)
            lock.withLock { if running[child.name] == pid { running[child.name] = nil } }
            return ended
        }
        let status = ended.status
        reporter.notReady("\(child.name): exited with status \(status)")
        // What it said last (why it could not start) may still be in the pipe. Only the child
        // holds the pipe's other end (`ChildSpawn.startWithOutputPipe`), so its exit ends the
        // output; the bound is for a grandchild that kept it.
        await Self.waitForEnd(of: drained, atMost: .seconds(2))
        listener.close()
        return ChildRun(status: status, becameReady: listener.current.isReady, lastLines: prefixer.lastLines)
    }

    /// Returns when `stream` ends, or after `limit` if it has not.
    private static func waitForEnd(of stream: AsyncStream<Never>, atMost limit: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { for await _ in stream {} }
            group.addTask { try? await Task.sleep(for: limit) }
            await group.next()
            group.cancelAll()
        }
    }

    private func stopAll() {
        let children = lock.withLock {
            stopping = true
            return Array(running.keys)
        }
        logger.info("stopping all processes, the gateway first")
        let gateways = children.filter { $0 == "gateway" }
        let others = children.filter { $0 != "gateway" }
        Task.detached { [self] in
            await stop(gateways)
            await stop(others)
        }
    }

    /// SIGTERM to each child named, then waits until all have exited, killing those still running
    /// after the grace period.
    private func stop(_ children: [String]) async {
        signal(SIGTERM, children)
        let deadline = ContinuousClock.now + gracePeriod
        // Each child's exit is seen by its own waitpid thread; looking every few milliseconds
        // costs nothing at shutdown.
        while lock.withLock({ children.contains { running[$0] != nil } }), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        let late = lock.withLock { children.compactMap { running[$0] } }
        for pid in late { logger.warning("process did not stop in time; killing it", metadata: ["pid": "\(pid)"]) }
        signal(SIGKILL, children)
    }

    /// Sends `signal` to those of `children` still running, under the lock, so that a child reaped
    /// meanwhile (whose pid may be another process's by now) is not signalled.
    private func signal(_ signal: Int32, _ children: [String]) {
        lock.withLock {
            for child in children { if let pid = running[child] { kill(pid, signal) } }
        }
    }
}

/// How one run of a child ended: its exit status, whether it had said it was ready, and its
/// last lines of output.
struct ChildRun {
    let status: Int32
    let becameReady: Bool
    let lastLines: [String]
}

/// A child of `tally up` that cannot start: it exited `attempts` times in a row before it was ready.
public struct ChildStartFailure: Error, CustomStringConvertible {
    public let child: String
    public let status: Int32
    public let attempts: Int
    public let lastLines: [String]

    public var description: String {
        let said = lastLines.isEmpty ? "it printed nothing" : "its last lines:\n" + lastLines.map { "  \($0)" }.joined(separator: "\n")
        return "\(child) could not start: it exited (status \(status)) before it was ready, \(attempts) times in a row; \(said)"
    }
}

/// Writes a child's output to our stderr line by line, each line behind the child's name, and
/// keeps the last few lines to say why a child could not start.
final class LinePrefixer: @unchecked Sendable {
    private let prefix: Data
    private var pending = Data()
    private var kept: [String] = []
    private let lock = NSLock()
    static let keptLines = 5

    /// The last `keptLines` lines written, without the prefix.
    var lastLines: [String] { lock.withLock { kept } }

    init(prefix: String) { self.prefix = Data(prefix.utf8) }

    func write(_ data: Data) {
        lock.withLock {
            pending.append(data)
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = pending[pending.startIndex...newline]
                FileHandle.standardError.write(prefix + line)
                keep(line.dropLast())
                pending.removeSubrange(pending.startIndex...newline)
            }
        }
    }

    func flush() {
        lock.withLock {
            if !pending.isEmpty {
                FileHandle.standardError.write(prefix + pending + Data("\n".utf8))
                keep(pending)
            }
            pending.removeAll()
        }
    }

    private func keep(_ line: Data) {
        kept.append(String(decoding: line, as: UTF8.self))
        if kept.count > Self.keptLines { kept.removeFirst() }
    }
}
