import Foundation
import TallyProtocol
import TallyTesting
import Testing

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
            let result = try JSONDecoder().decode(JSONValue.self, from: Data(json.output.utf8))
            #expect(result["services"]?[0]?["commands"]?[0]?["args_schema"]?["$id"] == "https://tally.example/schemas/commands/calc.tip.args.json")

            let unknown = try await tally(["describe", "ledger", "--endpoint", stack.frontend], in: stack)
            #expect(unknown.status == 1 && unknown.log.contains("there is no service 'ledger'"), "\(unknown.log)")

            let bad = try await tally(["call", "calc.tip", #"{"amount":"x","currency":"USD"}"#, "--endpoint", stack.frontend], in: stack)
            #expect(bad.status == 1 && bad.log.contains("what calc.tip takes: tally describe calc.tip"), "\(bad.log)")
        }
    }

    @Test func callGivesUpWithAClearMessageWhenNobodyAnswers() async throws {
        let stack = try TallyStack()
        let silent = "ipc://\(stack.directory.path)/nobody"
        let result = try await tally(["call", "system.ping", "--endpoint", silent, "--timeout-ms", "200", "--retries", "2"], in: stack)
        await stack.stop()
        #expect(result.status == 2)
        #expect(result.log.contains("no reply"))
        #expect(result.log.contains("3 tries"))
    }

    @Test func upRunsTheStackRestartsChildrenAndStopsCleanly() async throws {
        let stack = try TallyStack()
        // A data directory of its own: tally up makes the keys there on its first run.
        let dataDir = stack.directory.appendingPathComponent("up-data").path
        // The notifier's sockets private to this test, so parallel runs never meet.
        let notifierEndpoints = [
            "TALLY_EVENTS_ENDPOINT": "ipc://\(stack.directory.path)/up-events", "TALLY_ALERTS_ENDPOINT": "ipc://\(stack.directory.path)/up-alerts",
        ]
        let up = try stack.launch(
            "up",
            ["up", "--frontend", stack.frontend, "--backend", stack.backend, "--data-dir", dataDir, "--heartbeat-ms", "200",
             // 5 s of silence before a worker counts as dead: a loaded machine can pause a process for 600 ms.
             "--liveness", "25", "--admin", "olga"],
            environment: notifierEndpoints)
        do {
            // tally up is ready when every child is: the gateway bound, each worker registered.
            try await up.waitUntilReady()
            let reply = try await stack.client().call("calc.tip", ["amount": "84.00", "tip_percent": "18", "split": 3, "currency": "USD"])
            #expect(reply.result?["tip"] == "15.12")
            // Every service of the catalog starts, with one MDP worker per core, each log line
            // prefixed with its name, padded to the longest.
            for service in ["calc", "accounts", "currency", "shopping", "roster", "identity", "alerts"] {
                let workers = try await stack.serviceStatus(service)?["workers"]?.intValue
                #expect(workers == Int64(ProcessInfo.processInfo.activeProcessorCount), "\(service)")
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
}

/// Processes whose parent is `parent`, from /proc.
private func childProcesses(of parent: Int32) -> [(pid: Int32, commandLine: String)] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap { entry -> (Int32, String)? in
        guard let pid = Int32(entry),
            let status = try? String(contentsOfFile: "/proc/\(entry)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("PPid:") }),
            Int32(line.dropFirst(5).trimmingCharacters(in: .whitespaces)) == parent,
            let raw = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline")
        else { return nil }
        return (pid, String(decoding: raw.map { $0 == 0 ? UInt8(ascii: " ") : $0 }, as: UTF8.self))
    }
}
