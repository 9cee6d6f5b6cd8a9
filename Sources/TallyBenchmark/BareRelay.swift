import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import TallyCLI
import TallyLifecycle
import TallyTesting
import ZeroMQ

/// The limit for a brokered request on this machine: a ROUTER/ROUTER relay and one echo worker
/// over the project's own ZeroMQ layer, with no JSON and no logic.
///
/// The relay does what any broker must: read the client's message, put the worker's address in
/// front, send it on; read the worker's answer, put the client's address in front, send it back.
/// The echo worker sends back what it got. What Tally's path costs beyond this is the price of
/// the protocol, the JSON and the service.
///
/// Measured as Tally runs (issue 34's floor): the load client (this process), the relay and the
/// echo worker are each a process of its own, over the transport of the stack measured beside it
/// (ipc for a local stack, loopback tcp for a gateway named by a tcp `--endpoint`), scheduled as
/// the stack's servers are (`TALLY_CPU_SCHEDULING`). So the floor pays what Tally pays for its
/// process boundaries, and a row's CPU a request is charged with all three processes. The two are
/// this program itself, run as its hidden `bare-relay-part` command.
final class BareRelay: Sendable {
    typealias Role = BareRelayPart.Role

    /// Where the load client connects.
    let frontend: String
    /// The relay, then the echo worker.
    private let processes: [TallyProcess]

    /// The relay's and the echo worker's process ids, whose CPU time the relay's rows are charged with.
    var pids: [Int32] { processes.map(\.pid) }
    /// The names of a relay row's processes in `ProcessCPU`'s order: the load client, then `pids`'.
    static let processNames = ["tally-bench", "relay", "echo worker"]

    private init(frontend: String, processes: [TallyProcess]) {
        self.frontend = frontend
        self.processes = processes
    }

    /// How the relay is reached: as the stack measured beside it is.
    enum Transport: String, Sendable {
        /// Socket files in the run's directory, as a local stack's.
        case ipc
        /// Loopback ports of the system's choosing, as a gateway named by `--endpoint tcp://…` is.
        case tcp
    }

    /// Starts the relay and then the echo worker (with sockets and logs in `directory`), and
    /// returns once the relay says the worker has registered.
    static func start(in directory: URL, transport: Transport) async throws -> BareRelay {
        let executable = URL(fileURLWithPath: Bundle.main.executablePath ?? CommandLine.arguments[0])
        var processes: [TallyProcess] = []
        func start(_ role: Role, _ endpoints: [String]) throws -> TallyProcess {
            let process = try TallyProcess(
                name: "bare \(role.rawValue)", executable: executable, arguments: ["bare-relay-part", role.rawValue] + endpoints,
                logFile: directory.appendingPathComponent("bare-\(role.rawValue).log"),
                notifySocket: directory.appendingPathComponent("bare-\(role.rawValue).notify").path)
            processes.append(process)
            return process
        }
        do {
            let relay = try start(.relay, transport == .ipc
                ? ["--frontend", "ipc://\(directory.path)/relay-frontend", "--backend", "ipc://\(directory.path)/relay-backend"]
                : ["--frontend", "tcp://127.0.0.1:*", "--backend", "tcp://127.0.0.1:*"])
            // Once bound, the relay says where (the ports a tcp relay was given), and only then
            // can the echo worker connect.
            let bound = try await relay.waitForStatus(timeout: .seconds(60))
            guard let endpoints = BareRelayPart.boundEndpoints(bound) else {
                throw BenchmarkError("the bare relay said \"\(bound)\" where it should say where it listens")
            }
            _ = try start(.echo, ["--backend", endpoints.backend])
            // The relay says it is ready once the echo worker's READY has reached it.
            try await relay.waitUntilReady(timeout: .seconds(60))
            return BareRelay(frontend: endpoints.frontend, processes: processes)
        } catch {
            await stop(processes)
            throw error
        }
    }

    /// Stops the echo worker, then the relay.
    func shutdown() async { await Self.stop(processes) }

    /// Stops `processes`, the last started first.
    private static func stop(_ processes: [TallyProcess]) async {
        for process in processes.reversed() { await process.stop(grace: .seconds(5)) }
    }

    /// The relay's loop: [client, "", body] → [worker, client, "", body], and back. Once both
    /// sockets are bound, `bound` hears their endpoints as bound (a tcp port of `*` chosen); the
    /// first message from the backend is the worker's [worker, "READY"], after which
    /// `workerArrived` runs.
    static func relay(
        context: ZMQContext, frontend: String, backend: String, stop: WakeupSignal,
        bound: (_ frontend: String, _ backend: String) -> Void, workerArrived: () -> Void
    ) throws {
        let clients = try ZMQSocket(context: context, type: .router)
        let workers = try ZMQSocket(context: context, type: .router)
        defer {
            clients.close()
            workers.close()
        }
        for socket in [clients, workers] { try socket.setHighWaterMarks(send: 0, receive: 0) }
        try clients.bind(frontend)
        try workers.bind(backend)
        bound(try clients.lastEndpoint, try workers.lastEndpoint)
        var poller = ZMQPoller()
        let clientIndex = poller.add(clients)
        let workerIndex = poller.add(workers)
        poller.add(fileDescriptor: stop.fileDescriptor)
        var worker: Data?
        while !stop.isFired {
            try poller.poll(timeoutMilliseconds: 100)
            if poller.isReadable(workerIndex) {
                while var frames = try workers.receive(dontWait: true) {
                    if worker == nil {
                        worker = frames[0]
                        workerArrived()
                        continue
                    }
                    frames.removeFirst()
                    try clients.send(frames)
                }
            }
            if poller.isReadable(clientIndex), let worker {
                while let frames = try clients.receive(dontWait: true) {
                    try workers.send([worker] + frames)
                }
            }
        }
    }

    /// The echo worker's loop: says READY, then sends back every message as it came.
    static func echo(context: ZMQContext, backend: String, stop: WakeupSignal) throws {
        let socket = try ZMQSocket(context: context, type: .dealer)
        defer { socket.close() }
        try socket.setHighWaterMarks(send: 0, receive: 0)
        try socket.connect(backend)
        try socket.send([Data("READY".utf8)])
        var poller = ZMQPoller()
        poller.add(socket)
        poller.add(fileDescriptor: stop.fileDescriptor)
        while !stop.isFired {
            try poller.poll(timeoutMilliseconds: 100)
            while let frames = try socket.receive(dontWait: true) { try socket.send(frames) }
        }
    }
}

/// `tally-bench bare-relay-part relay|echo`: one process of the bare relay, started by
/// `tally-bench` itself (`BareRelay.start`). It runs until SIGTERM or SIGINT, or until the
/// `tally-bench` that started it is gone.
struct BareRelayPart: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bare-relay-part", abstract: "One process of the bare relay; tally-bench starts it.", shouldDisplay: false)

    enum Role: String, ExpressibleByArgument, CaseIterable, Sendable {
        case relay, echo
    }

    @Argument var role: Role
    @Option(help: "Where the relay binds for clients (a relay only).") var frontend: String?
    @Option(help: "Where the relay binds for its worker, and the echo worker connects.") var backend: String

    func validate() throws {
        if role == .relay && frontend == nil { throw ValidationError("the relay needs --frontend") }
    }

    /// The status line a relay sends once bound, before it is ready: `listening FRONTEND BACKEND`.
    static func boundStatus(frontend: String, backend: String) -> String { "listening \(frontend) \(backend)" }

    /// The endpoints in a relay's `boundStatus`, or nil for another line.
    static func boundEndpoints(_ status: String) -> (frontend: String, backend: String)? {
        let words = status.split(separator: " ").map(String.init)
        guard words.count == 3, words[0] == "listening" else { return nil }
        return (words[1], words[2])
    }

    func run() async throws {
        // As the stack's servers are scheduled, before any thread of libzmq's starts.
        _ = EnvironmentDefaults.cpuScheduling.value.apply()
        let (role, frontend, backend) = (role, frontend ?? "", backend)
        let context = try ZMQContext()
        let readiness = ReadinessNotifier.shared
        let loop = SocketLoopService(name: "bench-\(role.rawValue)") { stop in
            switch role {
            case .relay:
                try BareRelay.relay(
                    context: context, frontend: frontend, backend: backend, stop: stop,
                    bound: { readiness.notReady(status: Self.boundStatus(frontend: $0, backend: $1)) },
                    workerArrived: { readiness.ready(status: "an echo worker registered") })
            case .echo:
                try BareRelay.echo(context: context, backend: backend, stop: stop)
            }
        }
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: loop, successTerminationBehavior: .gracefullyShutdownGroup)
        ]
        if let parent = ParentWatchdog.parentFromEnvironment {
            services.append(.init(service: ParentWatchdog(parent: parent), successTerminationBehavior: .gracefullyShutdownGroup))
        }
        try await ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: Logger(label: "tally-bench.\(role.rawValue)"))
        ).run()
        context.terminate(within: .seconds(1))
    }
}
