import Foundation
import TallyObservability
import TallyProtocol
import TallyTesting
import Testing
import ZeroMQ

#if canImport(Glibc)
import Glibc
#endif

/// The `tally` command line as a user runs it.
@Suite struct CommandLineTests {
    /// Runs `tally` with `arguments` to completion; returns its exit status and standard output.
    private func tally(_ arguments: [String], in stack: TallyStack) async throws -> (status: Int32, output: String, log: String) {
        let process = try stack.launch("cli", arguments)
        #expect(await process.waitForExit(timeout: .seconds(20)))
        let log = process.log
        return (process.exitStatus ?? -1, log, log)
    }

    @Test func callPrintsOneLineAndExitsByOutcome() async throws {
        try await TallyStack.with(workers: ["calc": 1]) { stack in
            let ok = try await tally(
                ["call", "calc.tip", #"{"amount":"84.00","tip_percent":"18","split":3,"currency":"USD"}"#,
                 "--endpoint", stack.frontend], in: stack)
            #expect(ok.status == 0, "\(ok.log)")
            let line = try #require(ok.output.split(separator: "\n").first)
            #expect(ok.output.split(separator: "\n").count == 1, "piped output is one line")
            #expect(try Reply.decode(Data(line.utf8)).result?["total"] == "99.12")

            let bad = try await tally(["call", "calc.tip", #"{"amount":"x"}"#, "--endpoint", stack.frontend], in: stack)
            #expect(bad.status == 1)
            #expect(bad.output.contains("invalid_argument"))

            let notJSON = try await tally(["call", "calc.tip", "{oops", "--endpoint", stack.frontend], in: stack)
            #expect(notJSON.status != 0)
            #expect(notJSON.log.contains("not valid JSON"))
        }
    }

    @Test func describeShowsServicesAndACommandsFieldsAndCallPointsToIt() async throws {
        try await TallyStack.with(workers: ["calc": 1]) { stack in
            let all = try await tally(["describe", "--endpoint", stack.frontend], in: stack)
            #expect(all.status == 0, "\(all.log)")
            #expect(all.output.contains("calc, 1 worker\n") && all.output.contains("system, answered by the gateway\n"), "\(all.log)")
            #expect(all.output.contains("identity.grant_role") && all.output.contains("role admin"), "\(all.log)")

            let tip = try await tally(["describe", "calc", "tip", "--endpoint", stack.frontend], in: stack)
            #expect(tip.status == 0, "\(tip.log)")
            #expect(tip.output.hasPrefix("calc.tip: Tip, total and per-person shares of a bill.\n"), "\(tip.log)")
            #expect(tip.output.contains("Arguments:\n") && tip.output.contains("  split ") && tip.output.contains("Result:\n"), "\(tip.log)")

            let json = try await tally(["describe", "calc.tip", "--json", "--endpoint", stack.frontend], in: stack)
            let result = try JSONReader.parse(Data(json.output.utf8))
            #expect(result["services"]?[0]?["commands"]?[0]?["args_schema"]?["$id"] == "https://tally.example/schemas/commands/calc.tip.args.json")

            let unknown = try await tally(["describe", "ledger", "--endpoint", stack.frontend], in: stack)
            #expect(unknown.status == 1 && unknown.log.contains("there is no service 'ledger'"), "\(unknown.log)")

            let bad = try await tally(["call", "calc.tip", #"{"amount":"x","currency":"USD"}"#, "--endpoint", stack.frontend], in: stack)
            #expect(bad.status == 1 && bad.log.contains("what calc.tip takes: tally describe calc.tip"), "\(bad.log)")
        }
    }

    /// A gateway that takes the connection and never answers (a host up, a gateway stuck) gets the
    /// whole wait, every try.
    @Test func callGivesUpWithAClearMessageWhenNobodyAnswers() async throws {
        let stack = try TallyStack()
        let silent = try LoopbackListener()
        let clock = ContinuousClock()
        let start = clock.now
        let result = try await tally(["call", "system.ping", "--endpoint", silent.endpoint, "--timeout-ms", "200", "--retries", "2"], in: stack)
        let elapsed = clock.now - start
        await stack.stop()
        #expect(result.status == 2)
        #expect(result.log.contains("no reply from \(silent.endpoint) after 3 tries"), "\(result.log)")
        #expect(elapsed >= .milliseconds(600), "three tries of 200 ms")
        withExtendedLifetime(silent) {}
    }

    /// Where nothing accepts connections (no process on the port, no socket file), `tally call`,
    /// `tally health` and `tally status --once` say "no gateway" at once, not after their timeout
    /// (and `call`'s retries): each is given 10 minutes a try and must be done, process start
    /// included, within a minute. (On an idle machine it takes well under a second; beside the
    /// other tests of a run, starting a `tally` process has taken 15 s.)
    @Test func clientCommandsSayNoGatewayAtOnceWhereNothingListens() async throws {
        let stack = try TallyStack()
        // Bound and not listening: connections are refused, and no other test can take the port.
        let refusing = try LoopbackListener(listening: false)
        let closedPort = refusing.endpoint
        let noSocketFile = "ipc://\(stack.directory.path)/nobody"
        let clock = ContinuousClock()
        for (endpoint, command) in [
            (closedPort, ["call", "system.ping"]), (noSocketFile, ["call", "system.ping"]), (closedPort, ["health"]),
            (closedPort, ["status", "--once"]),
        ] {
            let start = clock.now
            let process = try stack.launch("cli", command + ["--endpoint", endpoint, "--timeout-ms", "600000"])
            let exited = await process.waitForExit(timeout: .seconds(60))
            let elapsed = clock.now - start
            #expect(exited, "\(command) at \(endpoint) still running after \(elapsed)")
            #expect(process.exitStatus == 2, "\(command): \(process.log)")
            #expect(process.log.contains("no gateway at \(endpoint)"), "\(command): \(process.log)")
        }
        await stack.stop()
        withExtendedLifetime(refusing) {}
    }

    @Test func upRunsTheStackRestartsChildrenAndStopsCleanly() async throws {
        let stack = try TallyStack()
        // A data directory of its own: tally up makes the keys there on its first run.
        let dataDir = stack.directory.appendingPathComponent("up-data").path
        // tally up's metrics at a port, its children's at the next eight.
        let metrics = try nineFreePorts()
        let up = try stack.launch(
            "up",
            ["up", "--frontend", stack.frontend, "--backend", stack.backend, "--data-dir", dataDir, "--heartbeat-ms", "200",
             "--metrics", "127.0.0.1:\(metrics)",
             // The notifier's sockets private to this test, so parallel runs never meet.
             "--events-endpoint", "ipc://\(stack.directory.path)/up-events", "--alerts-endpoint", "ipc://\(stack.directory.path)/up-alerts",
             // 5 s of silence before a worker counts as dead: a loaded machine can pause a process for 600 ms.
             "--liveness", "25", "--admin", "olga"])
        do {
            // tally up is ready when every child is: the gateway bound, each worker registered.
            try await up.waitUntilReady()
            let reply = try await stack.client().call("calc.tip", ["amount": "84.00", "tip_percent": "18", "split": 3, "currency": "USD"])
            #expect(reply.result?["tip"] == "15.12")
            // Every service of the catalog starts, with one MDP worker per core (one for the
            // services whose writes share transactions), each log line prefixed with its name,
            // padded to the longest.
            let cores = Int64(ProcessInfo.processInfo.activeProcessorCount)
            for service in ["calc", "accounts", "currency", "shopping", "roster", "identity", "alerts"] {
                let sharesTransactions = ["accounts", "shopping", "roster"].contains(service)
                let workers = try await stack.serviceStatus(service)?["workers"]?.intValue
                #expect(workers == (sharesTransactions ? 1 : cores), "\(service)")
            }
            // The first run made a signing key pair and the notifier's service token, privately,
            // and the admin, whose password it printed once: enough to log in and manage roles.
            for (file, mode) in [("keys/tally.private.jwk", 0o600), ("keys/tally.public.jwk", 0o644), ("keys/notifier.token", 0o600)] {
                #expect((try FileManager.default.attributesOfItem(atPath: "\(dataDir)/\(file)")[.posixPermissions] as? Int) == mode, "\(file)")
            }
            let printed = try #require(up.log.firstRange(of: "made the admin olga with the password "), "\(up.log)")
            let password = String(up.log[printed.upperBound...].prefix { $0 != " " })
            let olga = try await stack.logIn("olga", password: password)
            let users = try await stack.client(timeout: TallyStack.identityTimeout).call("identity.users", token: olga.accessToken)
            #expect(users.result?["users"]?.arrayValue?.compactMap { $0["username"]?.stringValue }.sorted() == ["notifier", "olga"], "\(users)")
            let prefixes = Set(up.log.split(separator: "\n").compactMap { line in
                line.firstRange(of: " | ").map { line[..<$0.lowerBound].trimmingCharacters(in: .whitespaces) }
            })
            #expect(prefixes.isSuperset(of: ["gateway", "calc", "accounts", "currency"]), "\(prefixes)")
            // The data is where the stack's engine says: SQLite files, or (TALLY_DATABASE_URL,
            // which tally up hands its children) PostgreSQL and no file at all.
            #expect(FileManager.default.fileExists(atPath: dataDir + "/accounts.sqlite") == (stack.databaseURL == nil))

            // tally up --metrics serves the stack's: its own /ready, and each child's metrics at the
            // next ports, the gateway's first and the notifier's last.
            #expect(try await scrape("/ready", port: metrics).status == 200)
            let gatewayMetrics = try await scrape("/metrics", port: metrics + 1)
            #expect(gatewayMetrics.body.contains("tally_gateway_"), "\(gatewayMetrics.body.prefix(300))")
            #expect(try await scrape("/metrics", port: metrics + 8).body.contains("tally_notifier_"))
            #expect(up.log.contains("gateway=127.0.0.1:\(metrics + 1)"), "\(up.log)")

            // Kill the calc child as a crash would: it comes back.
            let calcChild = try #require(childProcesses(of: up.pid).first { $0.commandLine.contains("worker calc") })
            kill(calcChild.pid, SIGKILL)
            try await stack.waitUntil("calc is restarted") {
                childProcesses(of: up.pid).contains { $0.commandLine.contains("worker calc") && $0.pid != calcChild.pid }
            }
            try await stack.waitForWorkers("calc", count: 1)
            #expect(up.log.contains("restarting"))

            let children = childProcesses(of: up.pid)
            #expect(await up.stop(grace: .seconds(15)), "SIGTERM stops tally up")
            #expect(up.exitStatus == 0)
            for child in children { #expect(kill(child.pid, 0) != 0, "child \(child.pid) is gone") }
        } catch {
            await stack.stop()
            throw error
        }
        await stack.stop()
    }

    /// A gateway whose port is taken cannot start: tally up says which child, and why in the
    /// child's own words, stops the others and exits non-zero, instead of restarting it forever.
    @Test func upFailsAndSaysWhichChildCannotStart() async throws {
        let stack = try TallyStack()
        let taken = try LoopbackListener()
        let dataDir = stack.directory.appendingPathComponent("up-data").path
        let up = try stack.launch(
            "up",
            ["up", "--frontend", taken.endpoint, "--backend", stack.backend, "--data-dir", dataDir,
             "--events-endpoint", "ipc://\(stack.directory.path)/up-events", "--alerts-endpoint", "ipc://\(stack.directory.path)/up-alerts"])
        let exited = await up.waitForExit(timeout: .seconds(60))
        let survivors = processes { $0.contains(dataDir) }
        let log = up.log
        await stack.stop()
        #expect(exited, "\(log)")
        #expect(up.exitStatus != nil && up.exitStatus != 0, "\(log)")
        #expect(log.contains("gateway could not start: it exited (status "), "\(log)")
        #expect(log.contains("before it was ready, 3 times in a row; its last lines:"), "\(log)")
        #expect(log.contains("Address already in use"), "the gateway's own words: \(log)")
        #expect(survivors.isEmpty, "no child outlives tally up: \(survivors)")
        withExtendedLifetime(taken) {}
    }

    /// An option declared once (an option group) is checked alike by every command that takes it,
    /// before anything starts: `tally up` refuses what its workers or its notifier would.
    @Test func sharedOptionsAreCheckedAlikeByEveryCommandThatTakesThem() async throws {
        let stack = try TallyStack()
        let refused: [(arguments: [String], message: String)] = [
            (["worker", "calc", "--capacity", "0"], "--capacity must be from 1 to 1000"),
            (["up", "--capacity", "0"], "--capacity must be from 1 to 1000"),
            (["up", "--concurrency", "257"], "--concurrency must be from 1 to 256"),
            (["gateway", "--max-message-bytes", "100"], "--max-message-bytes must be at least 1024"),
            (["worker", "calc", "--max-message-bytes", "100"], "--max-message-bytes must be at least 1024"),
            (["notifier", "--events-endpoint", "ipc:///tmp/a,ipc:///tmp/b"], "lists several endpoints; a notifier binds one"),
            (["up", "--events-endpoint", "ipc:///tmp/a,ipc:///tmp/b"], "lists several endpoints; a notifier binds one"),
        ]
        for case let (arguments, message) in refused {
            let (status, _, log) = try await tally(arguments, in: stack)
            #expect(status == 64, "\(arguments): \(log)")
            #expect(log.contains(message), "\(arguments): \(log)")
        }
        await stack.stop()
    }
}

/// A loopback port with the eight after it free too (each bound and released), for `tally up
/// --metrics` and its children.
private func nineFreePorts() throws -> Int {
    for _ in 0..<50 {
        let base = try freeLoopbackPort()
        guard base + 8 <= 65535 else { continue }
        if (1...8).allSatisfy({ isFreeLoopbackPort(base + $0) }) { return base }
    }
    throw POSIXError(.EADDRINUSE)
}

private func scrape(_ path: String, port: Int) async throws -> HTTPProbe.Response {
    let address = try #require(HTTPAddress("127.0.0.1:\(port)"))
    return try await HTTPProbe.get(path, from: address, timeout: .seconds(10))
}

/// Processes whose parent is `parent`, from /proc.
private func childProcesses(of parent: Int32) -> [(pid: Int32, commandLine: String)] {
    processes { _ in true }.filter { process in
        guard let status = try? String(contentsOfFile: "/proc/\(process.pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("PPid:") })
        else { return false }
        return Int32(line.dropFirst(5).trimmingCharacters(in: .whitespaces)) == parent
    }
}

/// Processes whose command line (arguments joined by spaces) passes `filter`, from /proc.
private func processes(_ filter: (String) -> Bool) -> [(pid: Int32, commandLine: String)] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap { entry -> (Int32, String)? in
        guard let pid = Int32(entry), let raw = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else { return nil }
        let commandLine = String(decoding: raw.map { $0 == 0 ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
        return filter(commandLine) ? (pid, commandLine) : nil
    }
}
