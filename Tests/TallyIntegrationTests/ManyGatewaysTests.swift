import Foundation
import Synchronization
import TallyClient
import TallyProtocol
import TallyTesting
import Testing

/// No single gateway: workers registered with several gateways, and clients that fail over
/// between them, through real processes.
@Suite struct ManyGatewaysTests {
    /// One worker process given two backends serves the clients of each gateway, and is ready only
    /// once both have registered it.
    @Test func aWorkerGivenTwoGatewaysServesThroughEach() async throws {
        try await TallyStack.with() { stack in
            let second = try await stack.startExtraGateway()
            let worker = try stack.startWorker("calc", concurrency: 2, backend: "\(stack.backend),\(second.backend)")
            try await worker.waitUntilReady()
            let status = try #require(worker.readiness.status)
            #expect(status.contains("2 of 2 at \(stack.backend)") && status.contains("2 of 2 at \(second.backend)"), "\(status)")

            let args: JSONValue = ["amount": "84.00", "tip_percent": "18", "currency": "USD"]
            for frontend in [stack.frontend, second.frontend] {
                let client = try stack.client(endpoints: [frontend])
                let services = try await client.call("system.services")
                let calc = services.result?["services"]?.arrayValue?.first { $0["name"] == "calc" }
                #expect(calc?["workers"] == 2, "the gateway at \(frontend) counts both of the process's threads: \(services)")
                let reply = try await client.call("calc.tip", args)
                #expect(reply.result?["total"] == "99.12", "through \(frontend): \(reply)")
            }
        }
    }

    /// A gateway in the list that is not running does not stop a worker serving through the others;
    /// the worker just does not say it is ready.
    @Test func aWorkerServesThroughTheGatewaysThatAreUp() async throws {
        try await TallyStack.with() { stack in
            let nowhere = "ipc://\(stack.directory.path)/no-gateway-backend"
            let worker = try stack.startWorker("calc", backend: "\(nowhere),\(stack.backend)")
            try await stack.waitForWorkers("calc", count: 1)
            let reply = try await stack.client().call("calc.tip", ["amount": "10.00", "tip_percent": "10", "currency": "USD"])
            #expect(reply.result?["total"] == "11.00", "\(reply)")
            #expect(!worker.readiness.isReady, "not every gateway listed has registered it: \(worker.summary)")
        }
    }

    /// Lazy Pirate over a list: a silent gateway is left for the next one within the caller's
    /// tries, never beyond them, and the error names every gateway tried.
    @Test func aClientFailsOverOnlyWithinItsTries() async throws {
        try await TallyStack.with() { stack in
            // Gateways that take the connection and never answer.
            let listeners = [try LoopbackListener(), try LoopbackListener()]
            let silent = listeners[0].endpoint
            // Long enough for the live gateway to answer on a loaded machine: each silent try waits it out.
            let timeout = Duration.seconds(2)

            // One try (as for a change without a key): no second send, even to another gateway.
            let once = try stack.client(endpoints: [silent, stack.frontend], timeout: timeout, tries: 1)
            await #expect {
                _ = try await once.call("system.ping")
            } throws: { error in
                "\(error)".contains("no reply from \(silent) after 1 try") && !"\(error)".contains(stack.frontend)
            }
            // ...but the next call starts at the next gateway.
            #expect(try await once.call("system.ping").isOK)

            // Two tries: the second goes to the second gateway, within the call.
            let twice = try stack.client(endpoints: [silent, stack.frontend], timeout: timeout, tries: 2)
            let clock = ContinuousClock()
            let start = clock.now
            #expect(try await twice.call("system.ping").isOK)
            #expect(clock.now - start >= timeout, "the first try waited for the silent gateway")

            // Every gateway silent: the error names each of them.
            let neither = try stack.client(
                endpoints: [silent, listeners[1].endpoint], timeout: .milliseconds(100), tries: 3)
            await #expect {
                _ = try await neither.call("system.ping")
            } throws: { error in
                "\(error)".contains("no reply from \(silent) and \(listeners[1].endpoint) after 3 tries")
            }
            withExtendedLifetime(listeners) {}
        }
    }

    /// A gateway nothing listens at is passed over at once, without using up a try: the request
    /// was never sent there, so even a one-try call goes on to the next gateway. When none
    /// listens, the error says so, in milliseconds, naming each.
    @Test func aClientPassesOverGatewaysNothingListensAt() async throws {
        try await TallyStack.with() { stack in
            // Bound and not listening: connections are refused, and no other test can take the port.
            let refusing = try LoopbackListener(listening: false)
            let closed = refusing.endpoint
            defer { withExtendedLifetime(refusing) {} }
            let noSocketFile = "ipc://\(stack.directory.path)/no-gateway-frontend"
            // Far longer than any call takes here, however loaded the machine.
            let timeout = Duration.seconds(60)
            let clock = ContinuousClock()

            let once = try stack.client(endpoints: [closed, stack.frontend], timeout: timeout, tries: 1)
            var start = clock.now
            #expect(try await once.call("system.ping").isOK)
            #expect(clock.now - start < timeout, "no wait for the gateway that is not there")

            let none = try stack.client(endpoints: [closed, noSocketFile], timeout: timeout, tries: 3)
            start = clock.now
            await #expect {
                _ = try await none.call("system.ping")
            } throws: { error in
                "\(error)".contains("no gateway at \(closed) and \(noSocketFile)")
            }
            #expect(clock.now - start < timeout, "no wait at all")
        }
    }

    /// The command line takes the lists: `tally call --endpoint A,B` fails over within its retries,
    /// and a malformed list is refused before anything runs.
    @Test func theCommandLineTakesListsOfGateways() async throws {
        try await TallyStack.with(workers: ["calc": 1]) { stack in
            func tally(_ arguments: [String]) async throws -> (status: Int32, log: String) {
                let process = try stack.launch("cli", arguments)
                #expect(await process.waitForExit(timeout: .seconds(20)))
                return (process.exitStatus ?? -1, process.log)
            }
            let listeners = [try LoopbackListener(), try LoopbackListener()]
            let silent = listeners[0].endpoint
            defer { withExtendedLifetime(listeners) {} }
            let call = try await tally(
                ["call", "calc.tip", #"{"amount":"10.00","tip_percent":"10","currency":"USD"}"#,
                 "--endpoint", "\(silent),\(stack.frontend)", "--timeout-ms", "2000", "--retries", "1"])
            #expect(call.status == 0, "\(call.log)")
            #expect(call.log.contains(#""total":"11.00""#), "\(call.log)")

            let none = try await tally(
                ["call", "system.ping", "--endpoint", "\(silent),\(listeners[1].endpoint)", "--timeout-ms", "100", "--retries", "0"])
            #expect(none.status == 2)
            #expect(none.log.contains("no reply from \(silent) after 1 try"), "\(none.log)")

            let empty = try await tally(["worker", "calc", "--backend", "\(stack.backend),,\(stack.backend)-too"])
            #expect(empty.status != 0)
            #expect(empty.log.contains("--backend has an empty endpoint"), "\(empty.log)")
            let twice = try await tally(["worker", "calc", "--backend", "\(stack.backend),\(stack.backend)"])
            #expect(twice.status != 0)
            #expect(twice.log.contains("--backend lists \(stack.backend) twice"), "\(twice.log)")
            let gateway = try await tally(["gateway", "--backend", "\(stack.backend),\(stack.backend)-too"])
            #expect(gateway.status != 0)
            #expect(gateway.log.contains("--backend is one endpoint for a gateway to bind, not a list"), "\(gateway.log)")
        }
    }

    /// The notifier given two gateways: its alerts worker registers with both, and its catch-up
    /// calls get past a gateway that does not answer to one that does.
    @Test func theNotifierServesAndCatchesUpThroughSeveralGateways() async throws {
        try await TallyStack.with(workers: ["identity": 1, "shopping": 1]) { stack in
            let second = try await stack.startExtraGateway()
            let ann = try await stack.signedUp("ann", timeout: TallyStack.identityTimeout)
            // Milk at 1.19, then dearer at 1.29, while no notifier runs: only catch-up can see it.
            for (name, price) in [("Last week", "1.19"), ("This week", "1.29")] {
                let list = try await ann.result("shopping.create_list", ["kind": "shopping", "name": .string(name), "currency": "EUR"])
                let item = try await ann.result("shopping.add_item", ["list_id": list["id"] ?? .null, "name": "Milk"])
                try await ann.result(
                    "shopping.mark_purchased",
                    ["list_id": list["id"] ?? .null, "item_id": item["item"]?["id"] ?? .null, "unit_price": .string(price)])
            }
            let silent = "ipc://\(stack.directory.path)/no-gateway-frontend"
            // Ready means the alerts worker is registered with both gateways.
            try await stack.startNotifier(
                extraArguments: ["--frontend", "\(silent),\(stack.frontend)", "--backend", "\(stack.backend),\(second.backend)"])
            try await stack.waitUntil("the notifier has caught up past the silent gateway and stored the price alert") {
                let alerts = try? await ann.call("alerts.list", ["after": 0])
                return alerts?.result?["alerts"]?.arrayValue?.contains { $0["kind"] == "price_higher" } == true
            }
            let throughSecond = try await stack.client(endpoints: [second.frontend], timeout: .seconds(10))
                .call("alerts.list", ["after": 0], token: ann.token)
            #expect(throughSecond.result?["alerts"]?.arrayValue?.contains { $0["kind"] == "price_higher" } == true, "\(throughSecond)")
        }
    }

    /// Killing the gateway a client is using, under a load of keyed writes: every write the client
    /// saw acknowledged exists exactly once, resending its key gives the stored result, and no call
    /// took longer than its tries allow.
    @Test func killingTheGatewayInUseLosesNoAcknowledgedWrite() async throws {
        try await TallyStack.with() { stack in
            let doomed = try await stack.startExtraGateway()
            let worker = try stack.startWorker("accounts", concurrency: 2, backend: "\(doomed.backend),\(stack.backend)")
            try await worker.waitUntilReady()
            let token = try stack.accessToken(for: "ann", lifetime: .seconds(3600))
            // The doomed gateway first: the client uses it until it falls silent. 15 s a try, as in
            // MultiHostTests: on a loaded machine a write can take more than 5 s, and the gateway's
            // deadline_exceeded for it is an answer, not retried.
            let timeout = Duration.seconds(15), tries = 3
            let client = try stack.client(endpoints: [doomed.frontend, stack.frontend], timeout: timeout, tries: tries)
            // The longest a call may take: every try waiting its whole timeout, plus the time to
            // start a thread and a socket for each.
            let budget = timeout * tries + .seconds(1)

            struct Write: Sendable {
                let key: String
                let name: String
                let reply: Reply?
                let failure: String?
                let elapsed: Duration
            }
            let tasks = 4, perTask = 30, killAt = 10
            let writes = try await withThrowingTaskGroup(of: [Write].self) { group in
                for task in 0..<tasks {
                    group.addTask {
                        var writes: [Write] = []
                        let clock = ContinuousClock()
                        for index in 0..<perTask {
                            // Mid-load: the other tasks have writes in flight through the doomed gateway.
                            if task == 0 && index == killAt { await doomed.process.kill9() }
                            let key = "failover-\(task)-\(index)", name = "t\(task)-\(index)"
                            let start = clock.now
                            do {
                                let reply = try await client.call(
                                    "accounts.create", ["name": .string(name), "starting_balance": "1.00", "currency": "EUR"],
                                    idempotencyKey: key, token: token)
                                writes.append(Write(key: key, name: name, reply: reply, failure: nil, elapsed: clock.now - start))
                            } catch {
                                writes.append(Write(key: key, name: name, reply: nil, failure: "\(error)", elapsed: clock.now - start))
                            }
                        }
                        return writes
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(!doomed.process.isRunning)
            #expect(writes.count == tasks * perTask)
            for write in writes {
                #expect(write.elapsed <= budget, "\(write.key) took \(write.elapsed), more than \(budget)")
                #expect(write.reply?.isOK == true, "\(write.key): \(write.reply.map { "\($0)" } ?? write.failure ?? "")")
            }
            #expect(writes.contains { $0.elapsed >= timeout }, "some call waited out the killed gateway and failed over")

            // What the worker stored, through the gateway left.
            let survivor = try stack.client(endpoints: [stack.frontend], timeout: .seconds(10))
            var stored: [String: [JSONValue]] = [:]
            var cursor: JSONValue = .null
            repeat {
                let args: JSONValue = cursor == .null ? ["limit": 100] : ["limit": 100, "cursor": cursor]
                let page = try #require(try await survivor.call("accounts.list", args, token: token).result)
                for account in page["accounts"]?.arrayValue ?? [] {
                    stored[account["name"]?.stringValue ?? "", default: []].append(account)
                }
                cursor = page["next_cursor"] ?? .null
            } while cursor != .null

            let acknowledged = writes.filter { $0.reply?.isOK == true }
            #expect(stored.values.allSatisfy { $0.count == 1 }, "no write applied twice: \(stored.filter { $0.value.count > 1 })")
            #expect(Set(stored.keys) == Set(writes.map(\.name)), "every write stored, none other")
            for write in acknowledged {
                #expect(
                    stored[write.name]?.map { $0["id"] } == [write.reply?.result?["id"]],
                    "\(write.key) stored as acknowledged: \(stored[write.name] ?? [])")
                let again = try await survivor.call(
                    "accounts.create", ["name": .string(write.name), "starting_balance": "1.00", "currency": "EUR"],
                    idempotencyKey: write.key, token: token)
                #expect(again.result == write.reply?.result, "\(write.key) resent: \(again)")
            }
        }
    }
}
