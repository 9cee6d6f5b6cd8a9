import Foundation
import TallyObservability
import TallyProtocol
import TallyTesting
import Testing
import ZeroMQ

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Every process's `--metrics` endpoint, scraped from real processes; the ops/ alerting rules and
/// dashboard checked against what they export; `tally health` by exit code.
@Suite struct MetricsThroughProcessesTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func everyProcessExportsWhatTheRulesAndDashboardName() async throws {
        let gatewayMetrics = try freeAddress()
        var options = TallyStack.Options()
        options.gatewayArguments = ["--metrics", "\(gatewayMetrics)"]
        try await TallyStack.with(options) { stack in
            let calcMetrics = try freeAddress()
            let accountsMetrics = try freeAddress()
            let notifierMetrics = try freeAddress()
            let calc = try stack.startWorker("calc", extraArguments: ["--metrics", "\(calcMetrics)", "--log-format", "json", "--log-level", "debug"])
            let accounts = try stack.startWorker("accounts", extraArguments: ["--metrics", "\(accountsMetrics)"])
            try await calc.waitUntilReady()
            try await accounts.waitUntilReady()
            let notifier = try await stack.startNotifier(extraArguments: ["--metrics", "\(notifierMetrics)", "--log-format", "json"])

            let client = try stack.client()
            let tip = try await client.call("calc.tip", ["amount": "84.00", "tip_percent": "18", "split": 3, "currency": "USD"], id: "req-tip-1")
            #expect(tip.isOK, "\(tip)")
            let bad = try await client.call("calc.tip", ["amount": "x"], id: "req-tip-2")
            #expect(!bad.isOK)
            let created = try await client.call(
                "accounts.create", ["name": "Wallet", "currency": "USD", "starting_balance": "10.00"],
                id: "req-create-1", idempotencyKey: "metrics-1", token: try stack.accessToken(for: "ann"))
            #expect(created.isOK, "\(created)")
            // The request's id travels with the event it caused...
            let events = try await client.call("accounts.events", ["after": 0], token: try stack.accessToken(for: "ann", roles: ["service"]))
            #expect(events.result?["events"]?.arrayValue?.first?["requestid"] == "req-create-1", "\(events)")
            try await stack.publish([priceChanged(1, requestID: "req-buy-1")])

            // Every process says it is ready on /ready, as it told its supervisor.
            for address in [gatewayMetrics, calcMetrics, accountsMetrics, notifierMetrics] {
                #expect(try await get("/ready", address).status == 200, "\(address)")
            }
            #expect(try await get("/nothing-here", gatewayMetrics).status == 404)

            let gateway = try await get("/metrics", gatewayMetrics).body
            #expect(gateway.contains(#"tally_gateway_requests_total{service="calc",command="calc.tip",outcome="ok"} 1"#), "\(gateway)")
            #expect(gateway.contains(#"tally_gateway_requests_total{service="calc",command="calc.tip",outcome="error"} 1"#))
            #expect(gateway.contains(#"tally_gateway_live_workers{service="calc"} 1"#))
            let calcText = try await get("/metrics", calcMetrics).body
            #expect(calcText.contains(#"tally_worker_requests_total{service="calc",command="calc.tip",code="invalid_argument"} 1"#), "\(calcText)")
            let accountsText = try await get("/metrics", accountsMetrics).body
            #expect(accountsText.contains(#"tally_events_published_total{service="accounts"} 1"#), "\(accountsText)")
            #expect(accountsText.contains(#"tally_events_pending{service="accounts"}"#), "\(accountsText)")
            try await stack.waitUntil("the notifier counts the alert") {
                (try? await get("/metrics", notifierMetrics).body.contains(#"tally_notifier_alerts_total{kind="price_higher"} 1"#)) == true
            }
            // A subscriber on the alert outlet is counted while it is connected.
            let watch = try stack.startWatch([], token: try stack.annToken())
            try await stack.waitUntil("the notifier counts the subscriber") {
                (try? await get("/metrics", notifierMetrics).body.contains("tally_notifier_subscriber_connections 1")) == true
            }
            await watch.stop()
            try await stack.waitUntil("the notifier sees the subscriber leave") {
                (try? await get("/metrics", notifierMetrics).body.contains("tally_notifier_subscriber_connections 0")) == true
            }
            let notifierText = try await get("/metrics", notifierMetrics).body
            #expect(notifierText.contains(#"tally_notifier_event_delay_seconds_count{source="shopping"} 1"#), "\(notifierText)")

            // Every metric says what it measures.
            let undescribed = [gateway, calcText, accountsText, notifierText].flatMap(Self.metricsWithoutHelp)
            #expect(undescribed.isEmpty, "no # HELP line for \(Set(undescribed).sorted())")

            let exported = Self.metricNames(inExposition: [gateway, calcText, accountsText, notifierText])
            let named = try Self.metricNamesInOps()
            #expect(!named.isEmpty)
            let missing = named.subtracting(exported)
            #expect(missing.isEmpty, "ops/ names metrics no process exports: \(missing.sorted())")

            // ...and into the notifier's line about the alert it caused.
            let notifierLines = notifier.log.split(separator: "\n").compactMap { try? JSONReader.parse(Data($0.utf8)) }
            #expect(notifierLines.contains { $0["message"] == "alert" && $0["request_id"] == "req-buy-1" }, "\(notifier.log)")

            // A JSON log line about a request carries its id and command.
            let lines = calc.log.split(separator: "\n").compactMap { try? JSONReader.parse(Data($0.utf8)) }
            #expect(lines.contains { $0["request_id"] == "req-tip-2" && $0["command"] == "calc.tip" && $0["code"] == "invalid_argument" }, "\(calc.log)")
        }
    }

    /// A worker logs `worker ready` when its `/ready` says so, not before: with no gateway to
    /// register with it answers 503 and has logged only that it is starting. Losing its gateway
    /// later, it answers 503 again until it is registered again, and says so again.
    @Test func aWorkerLogsThatItIsReadyWhenItsReadyEndpointSaysSo() async throws {
        let stack = try TallyStack()
        do {
            let metrics = try freeAddress()
            let worker = try stack.startWorker("calc", extraArguments: ["--metrics", "\(metrics)"])
            try await stack.waitUntil("the worker has started and serves /ready") {
                guard worker.log.contains("worker starting") else { return false }
                return (try? await get("/ready", metrics))?.status == 503
            }
            #expect(!worker.log.contains("worker ready"), "\(worker.log)")
            try await stack.startGateway()
            try await worker.waitUntilReady()
            #expect(try await get("/ready", metrics).status == 200)
            try await stack.waitUntil("the worker logs that it is ready") { worker.log.contains("worker ready") }

            #expect(await stack.gateway.stop(grace: .seconds(10)))
            try await stack.waitUntil("the worker, its gateway gone, is not ready") { (try? await get("/ready", metrics))?.status == 503 }
            #expect(worker.log.ranges(of: "worker ready").count == 1, "\(worker.log)")
            try await stack.startGateway()
            try await stack.waitUntil("the worker, registered again, is ready") { (try? await get("/ready", metrics))?.status == 200 }
            try await stack.waitUntil("the worker logs that it is ready again") { worker.log.ranges(of: "worker ready").count == 2 }
        } catch {
            await stack.stop()
            throw error
        }
        await stack.stop()
    }

    /// The endpoint's port is opened before anything else starts: taken, the process stops at
    /// once and says which setting to change, instead of serving without the endpoint.
    @Test func aTakenMetricsPortStopsTheProcessBeforeItServes() async throws {
        let stack = try TallyStack()
        let taken = try LoopbackListener()
        let gateway = try stack.launch(
            "gateway", ["gateway", "--frontend", stack.frontend, "--backend", stack.backend, "--metrics", "127.0.0.1:\(taken.port)"])
        let exited = await gateway.waitForExit(timeout: .seconds(30))
        let log = gateway.log
        await stack.stop()
        #expect(exited && gateway.exitStatus != 0, "\(log)")
        #expect(log.contains("cannot serve /metrics and /ready on 127.0.0.1:\(taken.port) (--metrics, TALLY_METRICS_ADDRESS)"), "\(log)")
        #expect(!log.contains("gateway ready"), "\(log)")
    }

    @Test func healthExitsByWhatItFinds() async throws {
        let gatewayMetrics = try freeAddress()
        var options = TallyStack.Options(workers: ["calc": 1])
        options.gatewayArguments = ["--metrics", "\(gatewayMetrics)"]
        try await TallyStack.with(options) { stack in
            func health(_ arguments: [String]) async throws -> (Int32, String) {
                let process = try stack.launch("health", ["health", "--timeout-ms", "2000"] + arguments)
                #expect(await process.waitForExit(timeout: .seconds(30)))
                return (process.exitStatus ?? -1, process.log)
            }
            let healthy = try await health(["--endpoint", stack.frontend, "--service", "calc"])
            #expect(healthy.0 == 0, "\(healthy.1)")
            let noWorker = try await health(["--endpoint", stack.frontend, "--service", "calc", "--service", "accounts"])
            #expect(noWorker.0 == 1, "\(noWorker.1)")
            #expect(noWorker.1.contains("service accounts: no live worker"))
            let ready = try await health(["--ready", "\(gatewayMetrics)"])
            #expect(ready.0 == 0, "\(ready.1)")
            let nobody = try await health(["--endpoint", "ipc://\(stack.directory.path)/nobody", "--timeout-ms", "300"])
            #expect(nobody.0 == 2, "\(nobody.1)")
            let closedPort = try freeAddress()
            let notListening = try await health(["--ready", "\(closedPort)", "--timeout-ms", "300"])
            #expect(notListening.0 == 2, "\(notListening.1)")
        }
    }

    // MARK: Support

    private func get(_ path: String, _ address: HTTPAddress) async throws -> HTTPProbe.Response {
        try await HTTPProbe.get(path, from: address, timeout: .seconds(10))
    }

    /// Names of the series in Prometheus text exposition (histograms as `_bucket`, `_sum`, `_count`).
    static func metricNames(inExposition texts: [String]) -> Set<String> {
        var names = Set<String>()
        for text in texts {
            for line in text.split(separator: "\n") where !line.hasPrefix("#") {
                let name = line.prefix { $0 != "{" && $0 != " " }
                if !name.isEmpty { names.insert(String(name)) }
            }
        }
        return names
    }

    /// The metrics with a `# TYPE` line and no `# HELP` line in one exposition.
    static func metricsWithoutHelp(_ text: String) -> [String] {
        func names(after prefix: String) -> Set<String> {
            Set(text.split(separator: "\n").filter { $0.hasPrefix(prefix) }.compactMap { $0.dropFirst(prefix.count).split(separator: " ").first.map(String.init) })
        }
        let typed = names(after: "# TYPE ")
        #expect(!typed.isEmpty, "\(text)")
        return typed.subtracting(names(after: "# HELP ")).sorted()
    }

    /// Every `tally_...` metric name the alerting rules and the dashboard use.
    static func metricNamesInOps() throws -> Set<String> {
        let files = ["ops/prometheus/alerts.yml", "ops/grafana/tally-dashboard.json"]
        var names = Set<String>()
        let pattern = try Regex(#"tally_[a-z_]+"#)
        for file in files {
            let text = try String(contentsOf: repository.appendingPathComponent(file), encoding: .utf8)
            for match in text.matches(of: pattern) { names.insert(String(text[match.range])) }
        }
        return names
    }

    /// A loopback address nobody listens on right now.
    private func freeAddress() throws -> HTTPAddress {
        try #require(HTTPAddress("127.0.0.1:\(try freeLoopbackPort())"))
    }
}
