import ArgumentParser
import Foundation
import TallyAuth
import TallyCatalog
import TallyCLI
import TallyClient
import TallyProtocol
import TallyStorage
import TallyTesting
import ZeroMQ

/// `tally-bench`: the request path measured against the limit of this machine, in one table.
///
/// Without `--endpoint` it starts its own stack as `tally up` would (a gateway, a calc worker
/// process with one MDP worker per core, and shopping and accounts workers for the durable
/// writes), as real processes on ipc endpoints. With `--baseline` (the default) it also runs a bare
/// ROUTER/ROUTER relay with an echo worker over the same ZeroMQ layer, each a process of its own as
/// Tally's are (`BareRelay`), and gives each throughput as a share of the relay's, measured in the
/// same run on the same machine.
@main
struct Benchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tally-bench",
        abstract: "Measure Tally's request path against a bare ZeroMQ relay, and print one table.",
        // The one subcommand is the bare relay's own processes, which nobody types.
        usage: "tally-bench [<options>]",
        subcommands: [BareRelayPart.self])

    @Option(help: "A running gateway to load; without it a fresh local stack is started.")
    var endpoint: String?

    @Option(help: "With --endpoint: this client's CURVE secret key file, NAME.key_secret (a client key the gateway allows).")
    var curveKey: String?

    @Option(help: "With --endpoint and --curve-key: the gateway's CURVE public key file, NAME.key.")
    var gatewayKey: String?

    @Flag(inversion: .prefixedNo, help: "Also measure a bare ROUTER/ROUTER relay and an echo worker, each a process of its own: the limit.")
    var baseline = true

    @Option(
        help:
            "MDP worker threads of the local calc worker process (tally up starts one per core). The shopping and accounts workers run their service's default (one thread), or TALLY_WORKER_CONCURRENCY's."
    )
    var concurrency: Int = ProcessInfo.processInfo.activeProcessorCount

    @Option(help: "Client sockets of the throughput rows.")
    var clients: Int = 4

    @Option(help: "Requests each client keeps in flight in the throughput rows.")
    var inFlight: Int = 16

    @Option(help: "Seconds measured per row.")
    var seconds: Double = 5

    @Option(help: "Slices each compared row is measured in, taking turns with the others.")
    var rounds: Int = 5

    @Option(help: "Seconds of warm-up before each row is measured.")
    var warmupSeconds: Double = 1

    @Flag(inversion: .prefixedNo, help: "Measure keyed durable writes (shopping.add_item, accounts.create).")
    var writes = true

    @Option(help: "Purchases a second in the event → alert row (a local stack only: it starts the notifier).")
    var alertRate: Int = 1000

    @Option(help: "After the table, load calc.tip (as its row does) for this many minutes and print the gateway's and the calc worker's resident memory each minute; 0 for none. A local stack only.")
    var soakMinutes: Double = 0

    @Option(help: EnvironmentDefaults.durability.help("When the local stack's writes are answered: disk (once synced to the disk, the default) or process (see docs/storage.md, Durability)."))
    var durability: Durability = EnvironmentDefaults.durability.value

    @Option(help: "Where a local stack keeps its data: sqlite (files in a temporary directory) or postgres (a throwaway PostgreSQL cluster this run starts, with fsync on, and a database on it).")
    var database: TestDatabase.Kind = .sqlite

    @Option(help: EnvironmentDefaults.token.help("Access token the writes to --endpoint are sent with (they are a signed-in person's); a local stack signs its own."))
    var token: String?

    func validate() throws {
        // A local stack's processes read these too, and would refuse to start.
        if let problem = EnvironmentDefaults.problems.first { throw ValidationError(problem) }
        if (curveKey != nil || gatewayKey != nil) && endpoint == nil {
            throw ValidationError("--curve-key and --gateway-key are for a running gateway: add --endpoint")
        }
        if database == .postgres && endpoint != nil {
            throw ValidationError("--database is where a local stack keeps its data: leave it out with --endpoint")
        }
        if (curveKey == nil) != (gatewayKey == nil) { throw ValidationError("--curve-key and --gateway-key go together") }
        guard clients >= 1, inFlight >= 1, concurrency >= 1 else { throw ValidationError("--clients, --in-flight and --concurrency must be at least 1") }
        guard inFlight <= 1024 else { throw ValidationError("--in-flight must be at most 1024") }
        guard seconds > 0, warmupSeconds >= 0 else { throw ValidationError("--seconds must be positive") }
        guard rounds >= 1 else { throw ValidationError("--rounds must be at least 1") }
        guard alertRate >= 1, Double(alertRate) * seconds >= 10 else {
            throw ValidationError("--alert-rate must be at least 1, and --alert-rate × --seconds at least 10 purchases")
        }
    }

    func run() async throws {
        let context = try ZMQContext()
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("tally-bench-\(getpid())")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        var table = ResultTable(header: header)

        var relay: BareRelay?
        var stack: TallyStack?
        let cluster = database == .postgres && endpoint == nil ? try PostgresCluster(syncsToDisk: true) : nil
        defer { try? cluster?.stop() }
        do {
            if baseline { relay = try await BareRelay.start(in: scratch, transport: transport) }
            let target: Target
            if let endpoint {
                target = Target(endpoint: endpoint, description: "the gateway at \(endpoint)", pids: nil)
            } else {
                // The stack's processes read it from the environment they inherit, as from tally up.
                setenv("TALLY_DURABILITY", durability.rawValue, 1)
                var options = TallyStack.Options(database: database)
                options.cluster = cluster
                options.heartbeat = .milliseconds(1000)
                let local = try TallyStack(options: options)
                stack = local
                try await local.startGateway()
                var started = [try local.startWorker("calc", concurrency: concurrency)]
                var notifier: TallyProcess?
                if writes {
                    // As tally up starts them: the service's default, or TALLY_WORKER_CONCURRENCY's.
                    started.append(try local.startWorker("shopping", concurrency: nil))
                    started.append(try local.startWorker("accounts", concurrency: nil))
                    // For the event → alert row; its catch-up is not what is measured, so rare. It
                    // handles every write's events too, so its CPU is the writes' as well.
                    notifier = try await local.startNotifier(catchUpMs: 5000)
                }
                for process in started { try await process.waitUntilReady() }
                // The processes whose CPU the rows charge after the gateway's, each with its name.
                let measured = started.map { (name: "\($0.name) worker", pid: $0.pid) } + (notifier.map { [(name: "notifier", pid: $0.pid)] } ?? [])
                target = Target(
                    endpoint: local.frontend, description: "gateway + calc worker (\(concurrency) MDP workers)",
                    pids: [local.gateway.pid] + measured.map(\.pid))
                table.processNames = ["tally-bench", "gateway"] + measured.map(\.name)
                table.memory = [("gateway", local.gateway.pid), ("calc worker", started[0].pid)].map { name, pid in
                    (name, ProcessCPU.residentBytes(pid), nil)
                }
            }
            try await measureReads(relay: relay, target: target, into: &table)
            if let stack {
                table.memory = zip(table.memory, [stack.gateway.pid] + (target.pids?.dropFirst().prefix(1) ?? [])).map { row, pid in
                    (row.name, row.atRest, ProcessCPU.residentBytes(pid))
                }
            }
            try await measureWrites(target, stack: stack, context: stack?.context ?? context, into: &table)
            table.print()
            if soakMinutes > 0, let stack { try await soak(target, stack: stack) }
        } catch {
            await relay?.shutdown()
            await stack?.stop()
            throw error
        }
        await relay?.shutdown()
        await stack?.stop()
    }

    /// Whether memory stays flat under load: calc.tip at the throughput row's load for
    /// `soakMinutes`, with the resident memory of the gateway and the calc worker after each minute.
    private func soak(_ target: Target, stack: TallyStack) async throws {
        guard let pids = target.pids, pids.count >= 2 else { return }
        let minutes = Int(soakMinutes.rounded(.up))
        func megabytes(_ pid: Int32) -> String {
            ProcessCPU.residentBytes(pid).map { String(format: "%.1f", Double($0) / 1_048_576) } ?? "?"
        }
        print("\nsoak: calc.tip at \(clients) × \(inFlight) for \(minutes) min; resident memory in MB")
        print("minute  req/s    p99 µs  errors  gateway  calc worker")
        print("     0       —        —       —  \(megabytes(pids[0]).padded(7))  \(megabytes(pids[1]).padded(11))")
        for minute in 1...minutes {
            let outcome = try await load(
                target.endpoint, clients: clients, inFlight: inFlight, warmup: .zero, slice: .seconds(60), pids: nil, body: Requests.tip)
            print(
                "\(String(minute).padded(6))  \(ResultTable.grouped(Int(outcome.requestsPerSecond)).padded(6))  "
                    + "\(ResultTable.grouped(Int(outcome.latency.valueAtPercentile(99))).padded(7))  \(String(outcome.errors).padded(6))  "
                    + "\(megabytes(pids[0]).padded(7))  \(megabytes(pids[1]).padded(11))")
        }
    }

    /// Where Tally is measured: an endpoint, and the processes behind it when they are this run's.
    private struct Target {
        let endpoint: String
        let description: String
        /// The stack's processes, whose CPU time the rows are charged with besides this one's; nil
        /// when the stack is not this benchmark's own (its CPU time is not measured then).
        let pids: [Int32]?
    }

    /// The rows compared with each other: the relay against calc.tip at 4 × 16, and one synchronous
    /// client's round trips. They are measured in `rounds` interleaved slices, so that other load
    /// coming and going on a shared machine falls on every row alike, and their ratios hold.
    private func measureReads(relay: BareRelay?, target: Target, into table: inout ResultTable) async throws {
        var relayThroughput = PipelinedLoad.Outcome()
        var relaySync = PipelinedLoad.Outcome()
        var tipThroughput = PipelinedLoad.Outcome()
        var pingSync = PipelinedLoad.Outcome()
        var tipSync = PipelinedLoad.Outcome()
        let slice = Duration.milliseconds(Int(seconds * 1000 / Double(rounds)))
        for round in 0..<rounds {
            // A full warm-up first; afterwards only new sockets need one.
            let warm = round == 0 ? warmup : min(warmup, .milliseconds(200))
            if let relay {
                relayThroughput.merge(try await load(relay.frontend, clients: clients, inFlight: inFlight, warmup: warm, slice: slice, checks: false, pids: relay.pids, body: Requests.tip))
            }
            tipThroughput.merge(try await load(target.endpoint, clients: clients, inFlight: inFlight, warmup: warm, slice: slice, pids: target.pids, body: Requests.tip))
            if let relay {
                relaySync.merge(try await load(relay.frontend, clients: 1, inFlight: 1, warmup: warm, slice: slice, checks: false, pids: relay.pids, body: Requests.tip))
            }
            pingSync.merge(try await load(target.endpoint, clients: 1, inFlight: 1, warmup: warm, slice: slice, pids: target.pids, body: Requests.ping))
            tipSync.merge(try await load(target.endpoint, clients: 1, inFlight: 1, warmup: warm, slice: slice, pids: target.pids, body: Requests.tip))
        }
        let pipelined = "\(clients) × \(inFlight)"
        if relay != nil {
            let figures = Figures(inFlight: pipelined, outcome: relayThroughput, processes: BareRelay.processNames)
            table.relay = figures
            table.add("bare relay + echo worker, processes of their own (no JSON)", figures)
        }
        table.add("calc.tip via \(target.description)", Figures(inFlight: pipelined, outcome: tipThroughput), versusRelay: true)
        // Each synchronous row against ping, and calc.tip's against the relay's: a brokered round
        // trip crosses more thread wake-ups than ping's, so the relay's own ratio is the floor.
        func p50Ratio(_ path: PipelinedLoad.Outcome, to base: PipelinedLoad.Outcome) -> Double {
            Double(path.latency.valueAtPercentile(50)) / Double(max(1, base.latency.valueAtPercentile(50)))
        }
        if relay != nil {
            table.add(
                "bare relay, one synchronous client", Figures(inFlight: "1 × 1", outcome: relaySync, processes: BareRelay.processNames),
                note: String(format: "%.2f × ping (p50)", p50Ratio(relaySync, to: pingSync)))
        }
        table.add("system.ping, one synchronous client (gateway only)", Figures(inFlight: "1 × 1", outcome: pingSync))
        var tipNote = String(format: "%.2f × ping (p50)", p50Ratio(tipSync, to: pingSync))
        if relay != nil { tipNote += String(format: ", %.2f × the relay's", p50Ratio(tipSync, to: relaySync)) }
        table.add("calc.tip, one synchronous client", Figures(inFlight: "1 × 1", outcome: tipSync), note: tipNote)
    }

    /// Keyed durable writes, each with its own idempotency_key, 16 in flight, as one signed-in
    /// person (lists and accounts are their owner's): a user of its own on the local stack, whose
    /// token it signs; `--token`'s user on another.
    private func measureWrites(_ target: Target, stack: TallyStack?, context: ZMQContext, into table: inout ResultTable) async throws {
        table.section("keyed durable writes, 16 in flight, and the events they make")
        let run = UUID().uuidString.prefix(8).lowercased()
        let accessToken = try stack?.accessToken(for: "bench-\(run)", lifetime: .seconds(3600)) ?? token ?? EnvironmentDefaults.token.value
        guard writes, let accessToken else {
            let why = writes ? "not measured: writes are a signed-in person's; pass --token with --endpoint" : "not measured (--no-writes)"
            table.placeholder("shopping.add_item", why)
            table.placeholder("accounts.create", why)
            table.placeholder("event → alert", why)
            return
        }
        let endpoint = target.endpoint
        let client = try TallyClient(endpoint: endpoint, timeout: .seconds(10), tries: 1, curve: try curve(), context: context)
        // A list holds at most 500 items: enough lists for 20,000 writes a second, over the first
        // slice's warm-up and each later one's.
        let listCount = Int(((seconds + warmupSeconds + 0.2 * Double(rounds)) * 20_000 / 500).rounded(.up)) + 1
        /// Makes `count` shopping lists named `name` and a number, and returns their ids.
        func createLists(_ count: Int, named name: String) async throws -> [Int64] {
            var lists: [Int64] = []
            for index in 0..<count {
                let reply = try await client.call(
                    "shopping.create_list", ["kind": "shopping", "name": .string("\(name) \(index)"), "currency": "EUR"],
                    idempotencyKey: "bench-\(run)-\(name)-\(index)", token: accessToken)
                guard let id = reply.result?["list_id"]?.intValue ?? reply.result?["id"]?.intValue else {
                    throw BenchmarkError("shopping.create_list failed: \(reply)")
                }
                lists.append(id)
            }
            return lists
        }
        let shoppingLists = try await createLists(listCount, named: "Bench")
        let slice = Duration.milliseconds(Int(seconds * 1000 / Double(rounds)))
        var addItem = PipelinedLoad.Outcome()
        var create = PipelinedLoad.Outcome()
        var bare: PipelinedLoad.Outcome?
        /// The keyed rows and the bare loop in `rounds` interleaved slices, as the reads are: the
        /// disk's speed moves more from one moment to the next than anything else here, and each
        /// row's share of the bare loop is only sound if both saw the same disk.
        func measureRounds(_ bareLoop: BareWriteLoop.Slices?) async throws {
            for round in 0..<rounds {
                let warm = round == 0 ? warmup : min(warmup, .milliseconds(200))
                addItem.merge(try await load(endpoint, clients: 4, inFlight: 4, warmup: warm, slice: slice, pids: target.pids, firstSequence: addItem.sent) { slot, sequence in
                    Data(#"{"id":"\#(slot)","command":"shopping.add_item","idempotency_key":"bench-\#(run)-item-\#(sequence)","token":"\#(accessToken)","args":{"list_id":\#(shoppingLists[min(sequence / 500, shoppingLists.count - 1)]),"name":"item \#(sequence)"}}"#.utf8)
                })
                create.merge(try await load(endpoint, clients: 4, inFlight: 4, warmup: warm, slice: slice, pids: target.pids, firstSequence: create.sent) { slot, sequence in
                    Data(#"{"id":"\#(slot)","command":"accounts.create","idempotency_key":"bench-\#(run)-account-\#(sequence)","token":"\#(accessToken)","args":{"name":"a\#(sequence)","currency":"USD","starting_balance":"10.00"}}"#.utf8)
                })
                if let bareLoop {
                    var measured = bare ?? PipelinedLoad.Outcome()
                    measured.merge(try await bareLoop.measure(warmup: warm, measured: slice))
                    bare = measured
                }
            }
        }
        // The limit: the rows a keyed add_item commits, by a bare loop on the same settings.
        let bareRow = "bare loop: add_item's rows, \(database == .postgres ? "PostgreSQL" : "SQLite"), 16 a transaction"
        if let stack {
            let location = try DataLocation(dataDirectory: stack.dataDirectory, databaseURL: stack.databaseURL, durability: durability)
            try await BareWriteLoop(location: location, inFlight: 16).run { try await measureRounds($0) }
        } else {
            try await measureRounds(nil)
        }
        func share(_ outcome: PipelinedLoad.Outcome) -> String? {
            guard let bare, bare.requestsPerSecond > 0 else { return nil }
            return String(format: "%.0f %% of the bare loop", 100 * outcome.requestsPerSecond / bare.requestsPerSecond)
        }
        table.add("shopping.add_item, idempotency_key each", Figures(inFlight: "4 × 4", outcome: addItem), note: share(addItem))
        table.add("accounts.create, idempotency_key each", Figures(inFlight: "4 × 4", outcome: create), note: share(create))
        if let bare {
            table.add(bareRow, Figures(inFlight: "16", outcome: bare), note: "the limit: no ZeroMQ, no JSON, no handlers")
        } else {
            table.placeholder(bareRow, "a local stack only")
        }

        let alertRow = "event → alert at \(ResultTable.grouped(alertRate)) purchases/s"
        guard let stack else {
            table.placeholder(alertRow, "a local stack only (it starts the notifier)")
            return
        }
        let purchases = EventToAlertLoad.purchases(rate: alertRate, warmup: warmup, measured: measured)
        let alertLists = try await createLists(
            (purchases + EventToAlertLoad.itemsPerList - 1) / EventToAlertLoad.itemsPerList, named: "Bench alerts")
        let alerts = try await EventToAlertLoad(
            endpoint: endpoint, alertsEndpoint: stack.alertsEndpoint, token: accessToken, lists: alertLists, rate: alertRate,
            warmup: warmup, measured: measured, run: String(run)
        ).run(context: context)
        table.add(alertRow, Figures(inFlight: "open loop", outcome: alerts), note: "from the purchase's answer to its alert at a subscriber")
    }

    private var header: String {
        #if DEBUG
        let build = "DEBUG build: not representative, use -c release"
        #else
        let build = "release build"
        #endif
        let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first.map(String.init) ?? "?"
        let data = endpoint == nil ? (database == .postgres ? "PostgreSQL (fsync on)" : "SQLite") + ", " : ""
        return "tally-bench: \(ProcessInfo.processInfo.activeProcessorCount) cores, load \(load) at start, \(build), \(transport.rawValue) endpoints, \(data)durability \(durability.rawValue); "
            + String(format: "%.1f s measured per row (all but event → alert in %d interleaved slices, reads with reads and writes with writes) after %.1f s warm-up", seconds, rounds, warmupSeconds)
    }

    /// The stack's transport, which the bare relay uses too: a local stack's ipc, or `--endpoint`'s.
    private var transport: BareRelay.Transport { endpoint?.hasPrefix("tcp://") == true ? .tcp : .ipc }

    private var measured: Duration { .milliseconds(Int(seconds * 1000)) }
    private var warmup: Duration { .milliseconds(Int(warmupSeconds * 1000)) }

    /// One slice of closed-loop load; `pids` as in `Target`.
    private func load(
        _ endpoint: String, clients: Int, inFlight: Int, warmup: Duration, slice: Duration, checks: Bool = true, pids: [Int32]?,
        firstSequence: Int = 0, body: @escaping PipelinedLoad.Body
    ) async throws -> PipelinedLoad.Outcome {
        var load = PipelinedLoad(
            endpoint: endpoint, clients: clients, inFlight: inFlight, warmup: warmup, measured: slice, checksReplies: checks,
            cpu: pids.map { ProcessCPU(pids: [getpid()] + $0) })
        load.firstSequence = firstSequence
        // Only a running gateway named by --endpoint has keys; the relay and a local stack do not.
        if endpoint == self.endpoint { load.curve = try curve() }
        return try await load.run(context: ZMQContext(), body: body)
    }

    /// The client keys for `--endpoint`, when `--curve-key` and `--gateway-key` are given.
    private func curve() throws -> CurveClientKeys? {
        guard let curveKey, let gatewayKey else { return nil }
        return try CurveClientKeys.load(secretFile: curveKey, serverFile: gatewayKey)
    }
}

extension String {
    /// Right-aligned in `width` columns.
    func padded(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}

/// The request bodies of the read rows, one per slot, made once.
enum Requests {
    static let tipArgs = #"{"amount":"84.00","tip_percent":"18","split":3,"currency":"USD"}"#

    static let tip: PipelinedLoad.Body = { slot, _ in tipBodies[slot % tipBodies.count] }
    static let ping: PipelinedLoad.Body = { slot, _ in pingBodies[slot % pingBodies.count] }

    private static let tipBodies = (0..<1024).map { Data(#"{"id":"\#($0)","command":"calc.tip","args":\#(tipArgs)}"#.utf8) }
    private static let pingBodies = (0..<1024).map { Data(#"{"id":"\#($0)","command":"system.ping"}"#.utf8) }
}

extension TestDatabase.Kind: ExpressibleByArgument {}
