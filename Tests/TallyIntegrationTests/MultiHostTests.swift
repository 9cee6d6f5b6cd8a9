import Foundation
import Synchronization
import TallyProtocol
import TallyTesting
import Testing

/// Tally across hosts: network namespaces joined by a bridge (`VirtualHosts`), every link TCP
/// under CURVE, the data on PostgreSQL over TLS.
///
/// - host 0: two gateways, the notifier (its alerts worker registered with both) and PostgreSQL;
/// - hosts 1 and 2: a worker process of every stateful service each (accounts, shopping, roster,
///   identity, currency), registered with both gateways, publishing events to the notifier;
/// - this test process (on the bridge's address): the clients, which list both gateways.
///
/// Under keyed load the gateway the clients use is frozen, then killed: every acknowledged write is
/// applied exactly once, every dearer purchase gives exactly one alert, and no call outlives its
/// budget.
@Suite(
    .enabled(if: VirtualHosts.whyUnavailable == nil, Comment(rawValue: VirtualHosts.whyUnavailable ?? "")),
    .enabled(if: PostgresCluster.isInstalled, Comment(rawValue: PostgresCluster.whyUnavailable ?? "")))
struct MultiHostTests {
    @Test func keyedWritesAndAlertsSurviveAGatewayKilledUnderLoadAcrossHosts() async throws {
        let hosts = try VirtualHosts(count: 3)
        let hub = hosts.hosts[0]
        let cluster: PostgresCluster
        do {
            cluster = try await PostgresCluster.started(tls: true, listeningAlsoOn: [hub.address], trusting: hosts.network, on: hub)
        } catch {
            hosts.tearDown()
            throw error
        }
        // The server first, while its host's network is still there.
        defer {
            try? cluster.stop()
            hosts.tearDown()
        }
        try cluster.makeDatabase("tally")
        let database = "postgres://\(PostgresCluster.superuser)@\(hub.address):\(cluster.port)/tally?sslmode=require"
        let stack = try TallyStack(options: TallyStack.Options(curve: true, database: .sqlite))
        do {
            try await run(stack, hosts, database)
        } catch {
            Issue.record("the processes' logs:\n\(stack.logs)")
            await stack.stop()
            throw error
        }
        await stack.stop()
    }

    private func run(_ stack: TallyStack, _ hosts: VirtualHosts, _ database: String) async throws {
        let curve = try #require(stack.curve)
        let hub = hosts.hosts[0]
        let timing = ["--heartbeat-ms", "200", "--liveness", "10"]
        let gateways = [5555, 5565].map { port in (frontend: "tcp://\(hub.address):\(port)", backend: "tcp://\(hub.address):\(port + 1)") }
        var gatewayProcesses: [TallyProcess] = []
        for (index, gateway) in gateways.enumerated() {
            let process = try stack.launch(
                "gateway-\(index)", ["gateway", "--frontend", gateway.frontend, "--backend", gateway.backend] + timing + curve.gatewayArguments,
                on: hub)
            gatewayProcesses.append(process)
        }
        for process in gatewayProcesses { try await process.waitUntilReady() }
        let backends = gateways.map(\.backend).joined(separator: ",")
        let frontends = gateways.map(\.frontend).joined(separator: ",")
        let onDatabase = ["TALLY_DATABASE_URL": database]

        // The notifier's service token, in the identity data on PostgreSQL.
        let tokenFile = "\(stack.dataDirectory)/keys/notifier.token"
        let issue = try stack.launch(
            "service-token", ["identity", "service-token", "notifier", "--out", tokenFile, "--data-dir", stack.dataDirectory],
            environment: onDatabase)
        #expect(await issue.waitForExit(timeout: .seconds(120)))
        #expect(issue.exitStatus == 0, "\(issue.log)")

        let events = "tcp://\(hub.address):5557"
        var started: [TallyProcess] = []
        for host in hosts.hosts[1...] {
            for service in ["accounts", "shopping", "roster", "identity", "currency"] {
                started.append(try stack.launch(
                    service,
                    ["worker", service, "--backend", backends, "--concurrency", "2", "--events-endpoint", events,
                     "--data-dir", stack.dataDirectory] + timing + curve.clientArguments("worker"),
                    environment: onDatabase, on: host))
            }
        }
        let notifier = try stack.launch(
            "notifier",
            ["notifier", "--events-endpoint", events, "--alerts-endpoint", "tcp://\(hub.address):5558",
             "--frontend", frontends, "--backend", backends, "--data-dir", stack.dataDirectory, "--service-token-file", tokenFile,
             "--catch-up-ms", "200", "--catch-up-timeout-ms", "2000"] + timing + curve.notifierArguments,
            environment: onDatabase, on: hub)
        for process in started + [notifier] { try await process.waitUntilReady() }

        // Clients on this host, the doomed gateway first: they use it until it falls silent. Each
        // try gets 15 s: with the whole suite sharing 2 cores, a write once took more than 5 s
        // (the gateway answered deadline_exceeded before the worker did, and nothing was retried).
        let timeout = Duration.seconds(15), tries = 3
        let client = try stack.client(endpoints: gateways.map(\.frontend), timeout: timeout, tries: tries)
        let budget = timeout * tries + .seconds(1)
        let ann = try stack.accessToken(for: "ann", userID: "2", lifetime: .seconds(3600))
        let list = try #require(try await client.call(
            "shopping.create_list", ["kind": "shopping", "name": "Week", "currency": "EUR"], idempotencyKey: "list", token: ann).result?["id"])

        struct Call: Sendable {
            let key: String
            let reply: Reply?
            let failure: String?
            let elapsed: Duration
        }
        let clock = ContinuousClock()
        func call(_ command: String, _ args: JSONValue, key: String) async -> Call {
            let start = clock.now
            do {
                let reply = try await client.call(command, args, idempotencyKey: key, token: ann)
                return Call(key: key, reply: reply, failure: nil, elapsed: clock.now - start)
            } catch {
                return Call(key: key, reply: nil, failure: "\(error)", elapsed: clock.now - start)
            }
        }
        let writers = 4, perWriter = 25, killAt = 8, purchases = 12
        let doomed = gatewayProcesses[0]
        let calls = try await withThrowingTaskGroup(of: [Call].self) { group in
            for writer in 0..<writers {
                group.addTask {
                    var calls: [Call] = []
                    for index in 0..<perWriter {
                        // Frozen first, so that this writer's next call is certain to be sent to
                        // it and wait out its timeout (a kill alone may find no call in flight,
                        // and a call sent after it is refused and fails over at once); killed
                        // once that call has failed over, with whatever it still holds.
                        let freezing = writer == 0 && index == killAt
                        if freezing { doomed.signal(SIGSTOP) }
                        calls.append(await call(
                            "accounts.create", ["name": .string("w\(writer)-\(index)"), "starting_balance": "1.00", "currency": "EUR"],
                            key: "account-\(writer)-\(index)"))
                        if freezing { await doomed.kill9() }
                    }
                    return calls
                }
            }
            // Milk, dearer every time: each purchase after the first is one alert.
            group.addTask {
                var calls: [Call] = []
                for index in 0..<purchases {
                    let added = await call("shopping.add_item", ["list_id": list, "name": "Milk"], key: "milk-\(index)")
                    calls.append(added)
                    guard let item = added.reply?.result?["item"]?["id"] else { continue }
                    calls.append(await call(
                        "shopping.mark_purchased", ["list_id": list, "item_id": item, "unit_price": .string("1.\(10 + index)")],
                        key: "milk-bought-\(index)"))
                }
                return calls
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(!doomed.isRunning)
        #expect(calls.count == writers * perWriter + purchases * 2)
        for call in calls {
            #expect(call.reply?.isOK == true, "\(call.key): \(call.reply.map { "\($0)" } ?? call.failure ?? "")")
            #expect(call.elapsed <= budget, "\(call.key) took \(call.elapsed), more than \(budget)")
        }
        let frozen = try #require(calls.first { $0.key == "account-0-\(killAt)" })
        #expect(frozen.elapsed >= timeout, "the call sent to the frozen gateway waited it out and failed over: \(frozen.elapsed)")

        // Every write stored once, as acknowledged; a resend gets the stored answer.
        var stored: [String: [JSONValue]] = [:]
        var cursor: JSONValue = .null
        repeat {
            let args: JSONValue = cursor == .null ? ["limit": 100] : ["limit": 100, "cursor": cursor]
            let page = try #require(try await client.call("accounts.list", args, token: ann).result)
            for account in page["accounts"]?.arrayValue ?? [] { stored[account["name"]?.stringValue ?? "", default: []].append(account) }
            cursor = page["next_cursor"] ?? .null
        } while cursor != .null
        #expect(stored.count == writers * perWriter)
        #expect(stored.values.allSatisfy { $0.count == 1 }, "no write applied twice: \(stored.filter { $0.value.count > 1 })")
        for call in calls where call.key.hasPrefix("account-") {
            let name = "w" + call.key.dropFirst("account-".count)
            #expect(stored[name]?.map { $0["id"] } == [call.reply?.result?["id"]], "\(call.key)")
        }
        let again = try await client.call(
            "accounts.create", ["name": "w1-3", "starting_balance": "1.00", "currency": "EUR"], idempotencyKey: "account-1-3", token: ann)
        #expect(again.result?["id"] == stored["w1-3"]?.first?["id"])

        // Every dearer purchase gave exactly one alert, through the notifier on the hub.
        let expected = purchases - 1
        @Sendable func listed() async -> [JSONValue] {
            (try? await client.call("alerts.list", ["after": 0, "limit": 100], token: ann))?.result?["alerts"]?.arrayValue ?? []
        }
        try await stack.waitUntil("the notifier has every alert", timeout: .seconds(60)) {
            await listed().filter { $0["kind"] == "price_higher" }.count >= expected
        }
        let alerts = await listed()
        let higher = alerts.filter { $0["kind"] == "price_higher" }
        #expect(higher.count == expected, "\(alerts)")
        #expect(Set(higher.compactMap { $0["text"]?.stringValue }).count == expected, "each purchase's alert once: \(higher)")

        // The other stateful services answer through the gateway left, from the shared database.
        let team = try await client.call(
            "roster.create_team", ["name": "Corner Store", "time_zone": "Europe/Amsterdam", "requires_approval": true, "display_name": "Ann"],
            idempotencyKey: "team", token: ann)
        #expect(team.result?["id"] != nil, "\(team)")
        try await stack.waitUntil("the currency data is loaded (by one of the two currency workers)", timeout: .seconds(60)) {
            (try? await client.call("currency.status"))?.result?["state"] == "ready"
        }
        #expect(try await client.call("currency.get", ["code": "CHF"]).result?["name"] == "Swiss Franc")
    }

    /// Capacity grows with hosts: requests that wait for the one busy worker host are taken by a
    /// worker host added under load. (On one machine the hosts share its cores, so what is shown
    /// is work served at once, not requests a second: `tally-bench` measures speed.)
    @Test func aWorkerHostAddedUnderLoadTakesTheWorkThatWaits() async throws {
        let hosts = try VirtualHosts(count: 3)
        defer { hosts.tearDown() }
        let stack = try TallyStack(options: TallyStack.Options(curve: true, database: .sqlite))
        do {
            let curve = try #require(stack.curve)
            let hub = hosts.hosts[0]
            let timing = ["--heartbeat-ms", "200", "--liveness", "10"]
            let frontend = "tcp://\(hub.address):5555", backend = "tcp://\(hub.address):5556"
            try await stack.launch(
                "gateway", ["gateway", "--frontend", frontend, "--backend", backend] + timing + curve.gatewayArguments, on: hub
            ).waitUntilReady()
            // One request at a time per host, each taking 2 s.
            func startCalc(on host: VirtualHosts.Host) throws -> TallyProcess {
                try stack.launch(
                    "calc",
                    ["worker", "calc", "--backend", backend, "--concurrency", "1", "--capacity", "1", "--handling-delay-ms", "2000"]
                        + timing + curve.clientArguments("worker"),
                    on: host)
            }
            try await startCalc(on: hosts.hosts[1]).waitUntilReady()
            let client = try stack.client(endpoints: [frontend], timeout: .seconds(60))
            // Four callers, each sending its next request as soon as the last is answered: work
            // waits at the gateway for as long as they go on, however long a host takes to start.
            let going = Going()
            let callers = (0..<4).map { _ in
                Task {
                    var answered: [Reply] = []
                    while going.value.load(ordering: .relaxed) {
                        answered.append(try await client.call(
                            "calc.tip", ["amount": "84.00", "tip_percent": "18", "split": 3, "currency": "USD"]))
                    }
                    return answered
                }
            }
            @Sendable func calc() async -> JSONValue? {
                (try? await client.call("system.services"))?.result?["services"]?.arrayValue?.first { $0["name"] == "calc" }
            }
            // One host: one request served, the others wait at the gateway.
            try await stack.waitUntil("one request is served and the rest wait", timeout: .seconds(30)) {
                let status = await calc()
                return status?["busy"]?.intValue == 1 && (status?["queued"]?.intValue ?? 0) >= 2
            }
            // A second host: two served at once.
            try await startCalc(on: hosts.hosts[2]).waitUntilReady()
            try await stack.waitUntil("both hosts serve at once", timeout: .seconds(60)) {
                await calc()?["busy"]?.intValue == 2
            }
            going.value.store(false, ordering: .relaxed)
            for caller in callers {
                for reply in try await caller.value { #expect(reply.result?["tip"] == "15.12", "\(reply)") }
            }
        } catch {
            Issue.record("the processes' logs:\n\(stack.logs)")
            await stack.stop()
            throw error
        }
        await stack.stop()
    }
}

/// Whether the callers of a test go on sending, shared with their tasks.
private final class Going: Sendable {
    let value = Atomic(true)
}
