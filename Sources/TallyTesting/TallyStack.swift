import Foundation
import TallyAuth
import TallyClient
import TallyProtocol
import ZeroMQ

/// A real Tally deployment for tests: a gateway and workers as separate `tally` processes, on ipc
/// endpoints in a fresh temporary directory, so tests run in parallel without port clashes.
///
/// Authentication is on, as in production: the stack makes a token-signing key pair in its data
/// directory's `keys`, where every worker finds the public key and the identity service the
/// private one. `accessToken(for:)` signs a token for any user with it, in one call.
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
        /// Short, so that a worker whose process died is noticed quickly (its closed pipe shows
        /// at the next heartbeat the gateway sends).
        public var heartbeat: Duration = .milliseconds(200)
        /// Generous, so that a process a busy machine leaves unscheduled for a second is not
        /// taken for dead: 2 s of silence.
        public var liveness: Int = 10
        public var gatewayArguments: [String] = []
        /// CURVE on every socket, with keys made for the stack (`TallyStack.curve`).
        public var curve = false
        /// Where the stateful services keep their data: `TestDatabase.kind` (so
        /// `TALLY_TEST_DATABASE=postgres` runs the integration tests on PostgreSQL), or a test
        /// about SQLite files pins `.sqlite`.
        public var database: TestDatabase.Kind = TestDatabase.kind
        /// Where the stateful workers keep their data and the stack its keys: `data` in the
        /// stack's directory when nil. A test of what the data's file system does (a small one
        /// that fills up, `SmallFileSystem`) names a directory it made, and removes it itself.
        public var dataDirectory: String?
        /// The PostgreSQL cluster the stack's database is made on, when `database` is `.postgres`:
        /// the test process's shared one when nil. A test that stops the server makes its own.
        public var cluster: PostgresCluster?
        /// Variables every process of the stack gets besides the stack's own (`TallyStack.environment`),
        /// such as tracing settings.
        public var environment: [String: String] = [:]
        public init(
            workers: [String: Int] = [:], curve: Bool = false, database: TestDatabase.Kind = TestDatabase.kind, dataDirectory: String? = nil
        ) {
            self.workers = workers
            self.curve = curve
            self.database = database
            self.dataDirectory = dataDirectory
        }
    }

    public let options: Options
    public let directory: URL
    public let frontend: String
    public let backend: String
    /// Where this stack's workers publish events (the notifier's inlet); private to the stack, so
    /// tests never publish into a notifier running on the machine.
    public let events: String
    public let context: ZMQContext
    /// Where the stack's stateful workers keep their data (and their keys, in `keys`).
    public let dataDirectory: String
    /// The stack's own PostgreSQL database, when `options.database` is `.postgres`: every process
    /// the stack launches gets it as `TALLY_DATABASE_URL`.
    public let databaseURL: String?
    /// The key the stack's tokens are signed with; its key pair is in `<dataDirectory>/keys`.
    public let signingKey: TokenSigningKey
    /// The stack's CURVE keys and allowlist, when `options.curve` is on; its workers use the
    /// `worker` key and `client()` the `client` key.
    public let curve: StackCurve?
    public private(set) var gateway: TallyProcess!
    private let lock = NSLock()
    private var processes: [TallyProcess] = []
    private var counter = 0

    /// The `tally` executable: `TALLY_EXECUTABLE`, or the one built beside the test bundle.
    ///
    /// Worked out once: every launch used to ask `Bundle.main` and build the URL again, from
    /// dozens of tests at once, and one full run crashed reading freed memory inside
    /// `URL.appendingPathComponent` there. One answer, computed once under Swift's lazy-global
    /// lock, is also all a run needs.
    public static let executable: URL = {
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
    }()

    public init(options: Options = Options()) throws {
        self.options = options
        let name = "tally-\(UUID().uuidString.prefix(8).lowercased())"
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        frontend = "ipc://\(directory.path)/frontend"
        backend = "ipc://\(directory.path)/backend"
        events = "ipc://\(directory.path)/events"
        dataDirectory = options.dataDirectory ?? directory.appendingPathComponent("data").path
        databaseURL = options.database == .postgres ? try (options.cluster ?? PostgresCluster.shared()).makeDatabase() : nil
        signingKey = try KeyFiles.create(name: "test", in: "\(dataDirectory)/keys").key
        curve = options.curve ? try StackCurve(directory: directory) : nil
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
        var started: [TallyProcess] = []
        for (service, count) in options.workers.sorted(by: { $0.key < $1.key }) {
            for _ in 0..<count { started.append(try startWorker(service)) }
        }
        for worker in started { try await worker.waitUntilReady() }
    }

    /// Starts (or restarts) the gateway on the stack's endpoints and waits until it is ready: its
    /// sockets are bound, so every request sent from now on is answered. `backend` replaces the
    /// stack's (a TCP address, for workers on other hosts), and `host` is where it runs (one of
    /// `VirtualHosts`; this machine's own network when nil).
    public func startGateway(backend: String? = nil, on host: VirtualHosts.Host? = nil) async throws {
        gateway = try launch(
            "gateway",
            ["gateway", "--frontend", frontend, "--backend", backend ?? self.backend] + timing + (curve?.gatewayArguments ?? [])
                + options.gatewayArguments,
            on: host)
        try await gateway.waitUntilReady()
    }

    /// Starts one worker process; `waitUntilReady()` on it waits until the gateway has registered
    /// every one of its threads. Under CURVE it connects with the key pair `curveKey`; `host` is
    /// where it runs (one of `VirtualHosts`; this machine's own network when nil). `concurrency`
    /// nil leaves the thread count to the service's default, as `tally worker` does;
    /// `environment` adds to the stack's.
    @discardableResult
    public func startWorker(
        _ service: String, concurrency: Int? = 1, backend: String? = nil, curveKey: String = "worker", extraArguments: [String] = [],
        environment: [String: String] = [:], on host: VirtualHosts.Host? = nil
    ) throws -> TallyProcess {
        try launch(
            service,
            ["worker", service, "--backend", backend ?? self.backend] + (concurrency.map { ["--concurrency", "\($0)"] } ?? [])
                + ["--events-endpoint", events, "--data-dir", dataDirectory] + timing + (curve?.clientArguments(curveKey) ?? [])
                + extraArguments,
            environment: environment, on: host)
    }

    /// The heartbeat arguments the stack's processes get (`options.heartbeat`, `options.liveness`).
    var timing: [String] {
        ["--heartbeat-ms", "\(options.heartbeat.roundedUpMilliseconds)", "--liveness", "\(options.liveness)"]
    }

    /// Settings every process of the stack gets in its environment: the cheapest accepted scrypt
    /// cost, so the many logins of a test run stay quick (the format and checks are the same).
    public static let environment = ["TALLY_PASSWORD_COST": "14"]

    /// Runs any `tally` command (for CLI tests) with its output in a log file of the stack;
    /// `environment` adds to (or overrides) the stack's, `input` is its standard input, and `host`
    /// is where it runs (one of `VirtualHosts`; this machine's own network when nil). `program`
    /// runs another program instead of `tally` (a client or worker written in another language).
    public func launch(
        _ name: String, _ arguments: [String], environment: [String: String] = [:], input: Data? = nil, on host: VirtualHosts.Host? = nil,
        program: URL = TallyStack.executable
    ) throws -> TallyProcess {
        let number = lock.withLock {
            counter += 1
            return counter
        }
        let process = try TallyProcess(
            name: name, executable: host.map { URL(fileURLWithPath: $0.prefix[0]) } ?? program,
            arguments: (host.map { Array($0.prefix.dropFirst()) + [program.path] } ?? []) + arguments,
            logFile: directory.appendingPathComponent("\(number)-\(name).log"),
            notifySocket: directory.appendingPathComponent("\(number).notify").path,
            environment: Self.environment.merging(databaseURL.map { ["TALLY_DATABASE_URL": $0] } ?? [:]) { _, new in new }
                .merging(options.environment) { _, new in new }.merging(environment) { _, new in new },
            input: input)
        lock.withLock { processes.append(process) }
        return process
    }

    /// The processes launched under `name` (a service's workers are named after the service).
    public func processes(named name: String) -> [TallyProcess] {
        lock.withLock { processes }.filter { $0.name == name }
    }

    /// A client of this stack's gateway; under CURVE with the key pair `curveKey`.
    public func client(timeout: Duration = .seconds(5), tries: Int = 1, curveKey: String = "client") throws -> TallyClient {
        try TallyClient(
            endpoint: frontend, timeout: timeout, tries: tries, curve: try curve?.clientKeys(curveKey), context: context)
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

    /// Polls `condition` until it holds; see `TallyTesting.waitUntil`. On failure, says what every
    /// process of the stack was doing and what each logged.
    public func waitUntil(
        _ what: String, timeout: Duration = .seconds(20), _ condition: @Sendable () async -> Bool
    ) async throws {
        try await TallyTesting.waitUntil(what, timeout: timeout, condition) { detail in
            StackError.timedOut(detail: detail, processes: self.processSummaries, logs: self.logs)
        }
    }

    /// One line per process: running or exited, ready or not, and its last status.
    public var processSummaries: String {
        lock.withLock { processes }.map(\.summary).joined(separator: "\n")
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
    /// A condition stayed false for the whole wait; `detail` names it and says how the wait went.
    case timedOut(detail: String, processes: String, logs: String)
    /// A process exited, or never said it was ready.
    case notReady(process: String, waited: Duration, log: String)
    /// A command a helper ran for the test failed.
    case refused(command: String, reply: String)

    public var description: String {
        switch self {
        case .timedOut(let detail, let processes, let logs):
            "timed out waiting until \(detail)\nprocesses:\n\(processes)\n\(logs)"
        case .notReady(let process, let waited, let log):
            "\(process) (waited up to \(waited) for READY=1)\n\(log)"
        case .refused(let command, let reply): "\(command) failed: \(reply)"
        }
    }
}
