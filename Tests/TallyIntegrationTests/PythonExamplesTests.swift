import Foundation
import TallyLifecycle
import TallyProtocol
import TallyTesting
import Testing

/// examples/python, run against a real stack: they are how most of Tally's callers first meet it,
/// so they must keep working as the protocol grows.
@Suite(.enabled(if: PythonExamples.whyUnavailable == nil, Comment(rawValue: PythonExamples.whyUnavailable ?? "")))
struct PythonExamplesTests {
    @Test func thePythonWorkerServesAndThePythonClientLogsInRefreshesAndFailsOverUnderCurve() async throws {
        try await TallyStack.with(Options(workers: ["identity": 1, "calc": 1], curve: true)) { stack in
            let curve = try #require(stack.curve)
            let keys = { (name: String) in ["--curve-key", curve.secretFile(name), "--gateway-key", curve.publicFile("gateway")] }

            let worker = try stack.launch(
                "greeter",
                ["python3", PythonExamples.worker.path, "--backend", stack.backend, "--heartbeat-ms", "\(stack.options.heartbeat.roundedUpMilliseconds)",
                 "--liveness", "\(stack.options.liveness)"] + keys("worker"),
                environment: PythonExamples.environment, program: PythonExamples.env)
            try await stack.waitForWorkers("greeter", count: 1)
            let client = try stack.client()
            let hello = try await client.call("greeter.hello", ["name": "Ann"], id: "g-1")
            #expect(hello.id == "g-1")
            #expect(hello.result == ["greeting": "Hello, Ann!"])
            let missing = try await client.call("greeter.hello")
            #expect(missing.error?.code == .invalidArgument && missing.error?.field == "args.name", "\(missing)")
            let unknown = try await client.call("greeter.wave")
            #expect(unknown.error?.code == .unimplemented && unknown.error?.field == "command", "\(unknown)")
            // It described its commands in READY, and the gateway tells whoever asks.
            let described = try await client.call("system.describe", ["service": "greeter"])
            let service = try #require(described.result?["services"]?[0], "\(described)")
            #expect(service["described_by"] == "worker")
            #expect(service["commands"]?[0]?["name"] == "greeter.hello" && service["commands"]?[0]?["args_schema"]?["required"] == ["name"])

            // The client's first gateway is down: it logs in through the second.
            try await stack.addUser("ann", roles: [])
            let nowhere = "ipc://\(stack.directory.path)/no-gateway-here"
            let demo = try stack.launch(
                "python-client",
                ["python3", PythonExamples.client.path, "--gateway", nowhere, "--gateway", stack.frontend, "--username", "ann",
                 // Ten seconds a try: a login hashes a password, and on a loaded two-core CI machine
                 // three seconds ran out before it was done.
                 "--password", "correct horse battery staple", "--timeout", "10"] + keys("client"),
                environment: PythonExamples.environment, program: PythonExamples.env)
            #expect(await demo.waitForExit(timeout: .seconds(120)))
            let log = demo.log
            #expect(demo.exitStatus == 0, "\(log)")
            #expect(log.contains("logged in as ann (session ") && log.contains("via \(stack.frontend)"), "\(log)")
            #expect(log.contains("whoami: ann\nrefreshed: whoami still ann\n"), "\(log)")
            #expect(log.contains("calc.tip: total 99.12 USD, 33.04 each"), "\(log)")
            #expect(log.contains("typed error: InvalidArgument on args.tip_percent: "), "\(log)")

            // SIGTERM: the worker says DISCONNECT, and the gateway forgets it at once.
            #expect(await worker.stop(grace: .seconds(20)))
            #expect(worker.exitStatus == 0, "\(worker.log)")
            try await stack.waitUntil("greeter has no worker") {
                (try? await stack.serviceStatus("greeter"))?["workers"]?.intValue == 0
            }
        }
    }
}

/// Where the examples are, and whether this machine can run them.
enum PythonExamples {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("examples/python")
    static let client = directory.appendingPathComponent("tally_client.py")
    static let worker = directory.appendingPathComponent("greeter_worker.py")
    /// `python3` is looked up on PATH, as the contract tests look up theirs.
    static let env = URL(fileURLWithPath: "/usr/bin/env")
    /// Output as it is written, so a failure shows everything the example said.
    static let environment = ["PYTHONUNBUFFERED": "1"]

    /// Nil when python3 with pyzmq is installed; ops/install-deps.sh installs both, so CI runs these tests.
    static let whyUnavailable: String? = {
        let ended = try? ChildSpawn.run([env.path, "python3", "-c", "import zmq"], output: "/dev/null")
        if ended?.succeeded == true { return nil }
        if ended == nil || ended?.status == 127 { return "the Python examples need python3 on PATH (ops/install-deps.sh installs it)" }
        return "the Python examples need pyzmq: python3 -m pip install pyzmq (ops/install-deps.sh does)"
    }()
}

private typealias Options = TallyStack.Options
