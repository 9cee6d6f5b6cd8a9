import Foundation
import Logging
import ServiceLifecycle
import TallyLifecycle

/// One child process of `tally up`: a name for its log prefix and the `tally` arguments to run.
struct ChildSpec: Sendable {
    let name: String
    let arguments: [String]
}

/// Keeps `tally up`'s children running: starts each, prefixes its output with its name, restarts
/// it with backoff when it dies, and on shutdown stops them in two steps: the gateway first, so it
/// drains (answers what it accepted, refuses new requests) while the workers are still there to
/// answer, then everything else; each step SIGTERM, then SIGKILL after a grace period.
///
/// Each child reports its readiness on a notification socket of its own (sd_notify), in
/// `runtimeDirectory`; `tally up` is ready, and says so to its own supervisor, once every child is.
final class ProcessSupervisor: Service, @unchecked Sendable {
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
    private let lock = NSLock()
    private var running: [String: Process] = [:]
    private var stopping = false

    init(children: [ChildSpec], environment: [String: String] = [:], runtimeDirectory: String, readiness: Readiness, logger: Logger) {
        self.environment = environment
        self.children = children
        self.logger = logger
        self.runtimeDirectory = runtimeDirectory
        self.readiness = readiness
        self.executable = Bundle.main.executablePath ?? CommandLine.arguments[0]
    }

    func run() async throws {
        try FileManager.default.createDirectory(atPath: runtimeDirectory, withIntermediateDirectories: true)
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                let width = children.map(\.name.count).max() ?? 0
                for child in children {
                    group.addTask { await self.keepRunning(child, prefix: child.name.padding(toLength: width, withPad: " ", startingAt: 0) + " | ") }
                }
            }
        } onGracefulShutdown: {
            self.stopAll()
        }
        logger.info("all processes stopped")
    }

    private var isStopping: Bool { lock.withLock { stopping } }

    private func keepRunning(_ child: ChildSpec, prefix: String) async {
        var delay: Duration = .milliseconds(500)
        while !isStopping {
            let started = ContinuousClock.now
            let status: Int32
            do {
                status = try await runOnce(child, prefix: prefix)
            } catch {
                logger.error("could not start", metadata: ["process": "\(child.name)", "error": "\(error)"])
                status = -1
            }
            if isStopping { break }
            if ContinuousClock.now - started > .seconds(30) { delay = .milliseconds(500) }
            logger.warning("process exited; restarting", metadata: ["process": "\(child.name)", "status": "\(status)", "in": "\(delay)"])
            // Sleep in slices so a shutdown during a long backoff is not kept waiting.
            let restartAt = ContinuousClock.now + delay
            while !isStopping && ContinuousClock.now < restartAt { try? await Task.sleep(for: .milliseconds(100)) }
            delay = min(delay * 2, .seconds(30))
        }
    }

    private func runOnce(_ child: ChildSpec, prefix: String) async throws -> Int32 {
        let reporter = readiness.reporter(for: child.name)
        reporter.notReady("\(child.name): starting")
        let listener = try ReadinessListener(socketPath: "\(runtimeDirectory)/\(child.name).notify") { state in
            let status = state.status ?? child.name
            if state.isReady && !state.isStopping { reporter.ready(status) } else { reporter.notReady(status) }
        }
        defer { listener.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = child.arguments
        var environment = ProcessInfo.processInfo.environment.merging(self.environment) { $1 }
        environment["TALLY_PARENT_PID"] = "\(getpid())"
        environment["NOTIFY_SOCKET"] = listener.socketPath
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        let prefixer = LinePrefixer(prefix: prefix)
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
                prefixer.flush()
            } else {
                prefixer.write(data)
            }
        }
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { process in continuation.resume(returning: process.terminationStatus) }
            do {
                try lock.withLock {
                    guard !stopping else { throw CancellationError() }
                    try process.runAlone()
                    running[child.name] = process
                }
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        reporter.notReady("\(child.name): exited with status \(status)")
        return status
    }

    private func stopAll() {
        let processes = lock.withLock {
            stopping = true
            return running
        }
        logger.info("stopping all processes, the gateway first")
        let gateways = processes.filter { $0.key == "gateway" }.map(\.value)
        let others = processes.filter { $0.key != "gateway" }.map(\.value)
        let grace = gracePeriod
        let logger = logger
        Task.detached {
            await Self.stop(gateways, grace: grace, logger: logger)
            await Self.stop(others, grace: grace, logger: logger)
        }
    }

    /// SIGTERM to each, then waits until all have exited, killing those still running after `grace`.
    private static func stop(_ processes: [Process], grace: Duration, logger: Logger) async {
        for process in processes where process.isRunning { kill(process.processIdentifier, SIGTERM) }
        let deadline = ContinuousClock.now + grace
        // Foundation's Process has one termination handler, taken by runOnce; looking every few
        // milliseconds costs nothing at shutdown.
        while processes.contains(where: \.isRunning), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        for process in processes where process.isRunning {
            logger.warning("process did not stop in time; killing it", metadata: ["pid": "\(process.processIdentifier)"])
            kill(process.processIdentifier, SIGKILL)
        }
    }
}

/// Writes a child's output to our stderr line by line, each line behind the child's name.
final class LinePrefixer: @unchecked Sendable {
    private let prefix: Data
    private var pending = Data()
    private let lock = NSLock()

    init(prefix: String) { self.prefix = Data(prefix.utf8) }

    func write(_ data: Data) {
        lock.withLock {
            pending.append(data)
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = pending[pending.startIndex...newline]
                FileHandle.standardError.write(prefix + line)
                pending.removeSubrange(pending.startIndex...newline)
            }
        }
    }

    func flush() {
        lock.withLock {
            if !pending.isEmpty { FileHandle.standardError.write(prefix + pending + Data("\n".utf8)) }
            pending.removeAll()
        }
    }
}
