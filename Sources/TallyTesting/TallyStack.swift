import Foundation
import TallyClient
import TallyProtocol
import ZeroMQ

/// A real Tally deployment for tests: a gateway and workers as separate `tally` processes, on ipc
/// endpoints in a fresh temporary directory, so tests run in parallel without port clashes.
///
/// ```swift
/// try await TallyStack.with(workers: ["calc": 1]) { stack in
///     let reply = try await stack.client().call("calc.tip", ["amount": "84.00", ...])
/// }
/// ```
public final class TallyStack: @unchecked Sendable {
    public struct Options: Sendable {
        /// Worker processes to start, by service, before the body runs.
        public var workers: [String: Int] = [:]
        /// Short, so that dead workers are noticed quickly in tests.
        public var heartbeat: Duration = .milliseconds(200)
        public var liveness: Int = 3
        public var gatewayArguments: [String] = []
        public init(workers: [String: Int] = [:]) { self.workers = workers }
    }

    public let options: Options
    public let directory: URL
    public let frontend: String
    public let backend: String
    /// Where this stack's workers publish events (the notifier's inlet); private to the stack, so
    /// tests never publish into a notifier running on the machine.
    public let events: String
    public let context: ZMQContext
    public private(set) var gateway: TallyProcess!
    private let lock = NSLock()
    private var processes: [TallyProcess] = []
    private var counter = 0

    /// The `tally` executable: `TALLY_EXECUTABLE`, or the one built beside the test bundle.
    public static var executable: URL {
        if let path = ProcessInfo.processInfo.environment["TALLY_EXECUTABLE"] { return URL(fileURLWithPath: path) }
        let testBinary = URL(fileURLWithPath: Bundle.main.executablePath ?? CommandLine.arguments[0])
        var directory = testBinary.deletingLastPathComponent()
        // `swift test` runs `<build>/debug/TallyPackageTests.xctest` (a file on Linux, a bundle elsewhere).
        while !FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent("tally").path),
            directory.pathComponents.count > 1
        {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent("tally")
    }

    public init(options: Options = Options()) throws {
        self.options = options
        let name = "tally-\(UUID().uuidString.prefix(8).lowercased())"
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        frontend = "ipc://\(directory.path)/frontend"
        backend = "ipc://\(directory.path)/backend"
        events = "ipc://\(directory.path)/events"
        context = try ZMQContext()
    }

    /// Starts a stack, runs `body`, and stops every process whatever happens.
    public static func with<T: Sendable>(
        _ options: Options = Options(), _ body: (TallyStack) async throws -> T
    ) async throws -> T {
        let stack = try TallyStack(options: options)
        do {
            try await stack.start()
            let result = try await body(stack)
            await stack.stop()
            return result
        } catch {
            await stack.stop()
            throw error
        }
    }

    public static func with<T: Sendable>(workers: [String: Int], _ body: (TallyStack) async throws -> T) async throws -> T {
        try await with(Options(workers: workers), body)
    }

    /// Starts the gateway and the configured workers, and waits until all of them are registered.
    public func start() async throws {
        try await startGateway()
        for (service, count) in options.workers.sorted(by: { $0.key < $1.key }) {
            for _ in 0..<count { try startWorker(service) }
            try await waitForWorkers(service, count: count)
        }
    }

    /// Starts (or restarts) the gateway on the stack's endpoints and waits until it answers.
    public func startGateway() async throws {
        gateway = try launch(
            "gateway",
            ["gateway", "--frontend", frontend, "--backend", backend] + timing + options.gatewayArguments)
        try await waitUntil("the gateway answers system.ping") {
            (try? await self.client(timeout: .milliseconds(200), tries: 1).call("system.ping"))?.isOK == true
        }
    }

    /// Starts one worker process; call `waitForWorkers` to wait for it to register.
    @discardableResult
    public func startWorker(
        _ service: String, concurrency: Int = 1, backend: String? = nil, extraArguments: [String] = []
    ) throws -> TallyProcess {
        try launch(
            service,
            ["worker", service, "--backend", backend ?? self.backend, "--concurrency", "\(concurrency)",
             "--events-endpoint", events,
             "--data-dir", directory.appendingPathComponent("data").path] + timing + extraArguments)
    }

    private var timing: [String] {
        ["--heartbeat-ms", "\(options.heartbeat.roundedUpMilliseconds)", "--liveness", "\(options.liveness)"]
    }

    /// Runs any `tally` command (for CLI tests) with its output in a log file of the stack.
    public func launch(_ name: String, _ arguments: [String]) throws -> TallyProcess {
        let number = lock.withLock {
            counter += 1
            return counter
        }
        let process = try TallyProcess(
            name: name, executable: Self.executable, arguments: arguments,
            logFile: directory.appendingPathComponent("\(number)-\(name).log"))
        lock.withLock { processes.append(process) }
        return process
    }

    /// A client of this stack's gateway.
    public func client(timeout: Duration = .seconds(5), tries: Int = 1) throws -> TallyClient {
        try TallyClient(endpoint: frontend, timeout: timeout, tries: tries, context: context)
    }

    /// The gateway's `system.services` row for `service`.
    public func serviceStatus(_ service: String) async throws -> JSONValue? {
        let reply = try await client(timeout: .seconds(2)).call("system.services")
        return reply.result?["services"]?.arrayValue?.first { $0["name"]?.stringValue == service }
    }

    /// Waits until the gateway counts at least `count` live workers of `service`.
    public func waitForWorkers(_ service: String, count: Int, timeout: Duration = .seconds(20)) async throws {
        try await waitUntil("\(count) \(service) worker(s) registered", timeout: timeout) {
            (try? await self.serviceStatus(service))?["workers"]?.intValue ?? 0 >= Int64(count)
        }
    }

    /// Polls `condition` until it holds, failing with the stack's logs after `timeout`.
    public func waitUntil(
        _ what: String, timeout: Duration = .seconds(20), _ condition: @Sendable () async -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while !(await condition()) {
            guard ContinuousClock.now < deadline else {
                throw StackError.timedOut(what: what, logs: logs)
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Every process's log, for failure messages.
    public var logs: String {
        lock.withLock { processes }.map { "--- \($0.name) (\($0.arguments.joined(separator: " ")))\n\($0.log)" }
            .joined(separator: "\n")
    }

    /// Stops every process (SIGTERM, then SIGKILL) and removes the temporary directory.
    public func stop() async {
        let all = lock.withLock { processes }
        for process in all.reversed() { await process.stop() }
        try? FileManager.default.removeItem(at: directory)
    }
}

public enum StackError: Error, CustomStringConvertible {
    case timedOut(what: String, logs: String)

    public var description: String {
        switch self {
        case .timedOut(let what, let logs): "timed out waiting until \(what)\n\(logs)"
        }
    }
}
