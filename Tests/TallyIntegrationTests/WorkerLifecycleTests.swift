import Foundation
import TallyProtocol
import TallyTesting
import Testing
import ZeroMQ

/// Workers joining late, dying mid-request, sharing load, and outliving a gateway restart.
@Suite struct WorkerLifecycleTests {
    private let bill: JSONValue = ["amount": "84.00", "tip_percent": "18", "split": 3, "currency": "USD"]

    @Test func aWorkerThatJoinsLateStillGetsTheWaitingRequest() async throws {
        try await TallyStack.with() { stack in
            // The deadline covers a worker process starting on a loaded machine: that is not the subject.
            let client = try stack.client(timeout: .seconds(120))
            async let reply = client.call("calc.tip", bill)
            try await stack.waitUntil("the request is queued") {
                (try? await stack.serviceStatus("calc"))?["queued"]?.intValue == 1
            }
            try stack.startWorker("calc")
            let answer = try await reply
            #expect(answer.result?["tip"] == "15.12", "\(answer)")
        }
    }

    @Test func aQueryWhoseWorkerIsKilledIsAnsweredByAnother() async throws {
        try await TallyStack.with() { stack in
            // Slower than the whole test: it is killed holding the request, whenever that is.
            let slow = try stack.startWorker("calc", extraArguments: ["--handling-delay-ms", "120000"])
            try await slow.waitUntilReady()
            let client = try stack.client(timeout: .seconds(90))
            async let reply = client.call("calc.tip", bill)
            try await stack.waitUntil("the slow worker holds the request") {
                (try? await stack.serviceStatus("calc"))?["busy"]?.intValue == 1
            }
            try await stack.startWorker("calc").waitUntilReady()
            await slow.kill9()
            let answer = try await reply
            #expect(answer.result?["tip"] == "15.12", "\(answer)")
            #expect(stack.gateway.log.contains("re-dispatching"))
        }
    }

    @Test func aChangeWhoseWorkerDiesIsRetriedOnlyWithAnIdempotencyKey() async throws {
        try await TallyStack.with() { stack in
            // Without a key: the dying worker may have applied it, so the client hears unavailable.
            let doomed = try await stack.rawWorker("ledger", .swallow)
            // The deadline covers a second worker registering on a loaded machine: that is not the
            // subject (10 s ran out during CI on a slow machine, the keyed request answered
            // deadline_exceeded before the retry reached the second worker).
            let client = try stack.client(timeout: .seconds(90))
            async let unkeyed = client.call("ledger.post", ["amount": "5.00"])
            try await stack.waitUntil("the worker holds the request") { doomed.received.count == 1 }
            try await doomed.crashNow()
            let refused = try await unkeyed
            #expect(refused.error?.code == .unavailable)
            #expect(refused.error?.message.contains("idempotency_key") == true, "\(refused)")

            // With a key: it goes to the next worker, once.
            let first = try await stack.rawWorker("ledger", .swallow)
            async let keyed = client.call("ledger.post", ["amount": "5.00"], idempotencyKey: "post-1")
            try await stack.waitUntil("the first worker holds the request") { first.received.count == 1 }
            let second = try await stack.rawWorker("ledger", .reply({ _ in Data(#"{"ok":true,"result":{"posted":true}}"#.utf8) }), expectWorkers: 2)
            try await first.crashNow()
            let answer = try await keyed
            #expect(answer.result?["posted"] == true, "\(answer)")
            #expect(second.received.count == 1)
            try await second.stop()
        }
    }

    /// A worker runs a request on its socket's own thread, so it sends nothing while a slow command
    /// runs; the gateway does not expire a worker that holds a request before the request's deadline.
    @Test func aBusyWorkerIsNotExpiredDuringASlowCommand() async throws {
        try await TallyStack.with() { stack in
            // 3 s of work against a gateway that expires silent workers after 10 × 200 ms.
            try stack.startWorker("calc", extraArguments: ["--handling-delay-ms", "3000"])
            try await stack.waitForWorkers("calc", count: 1)
            let reply = try await stack.client(timeout: .seconds(10)).call("calc.tip", bill)
            #expect(reply.isOK, "\(reply)")
            #expect(!stack.gateway.log.contains("worker left"), "\(stack.gateway.log)")
            // And the worker is still registered, not reconnecting.
            #expect(try await stack.serviceStatus("calc")?["workers"] == 1)
        }
    }

    @Test func twoWorkerProcessesShareTheLoad() async throws {
        try await TallyStack.with() { stack in
            try stack.startWorker("calc", extraArguments: ["--handling-delay-ms", "600"])
            try stack.startWorker("calc", extraArguments: ["--handling-delay-ms", "600"])
            try await stack.waitForWorkers("calc", count: 2)
            try await expectBothWorkersBusy(stack)
        }
    }

    @Test func workerThreadsInOneProcessShareTheLoad() async throws {
        try await TallyStack.with() { stack in
            try stack.startWorker("calc", concurrency: 2, extraArguments: ["--handling-delay-ms", "600"])
            try await stack.waitForWorkers("calc", count: 2)
            try await expectBothWorkersBusy(stack)
        }
    }

    /// Two requests at once must be handled at once: the gateway sees both workers busy together.
    ///
    /// Both requests are sent, and the gateway watched, from one thread of the test's own: two
    /// tasks of the concurrency pool would start whenever the pool (shared with every other test
    /// of the run) gets round to them, perhaps further apart than a request takes.
    private func expectBothWorkersBusy(_ stack: TallyStack) async throws {
        let request = Envelope(command: "calc.tip", args: bill, deadlineMs: 30_000).encoded()
        let status = Envelope(command: "system.services").encoded()
        let (sawBothBusy, replies) = try await DedicatedThread.run(name: "two-at-once") { [context = stack.context, frontend = stack.frontend] in
            let callers = try (0..<2).map { _ in try ZMQSocket(context: context, type: .dealer) }
            let watcher = try ZMQSocket(context: context, type: .dealer)
            defer { (callers + [watcher]).forEach { $0.close() } }
            for socket in callers + [watcher] { try socket.connect(frontend) }
            for caller in callers { try caller.send([Data(), request]) }
            var replies: [Reply] = []
            var sawBothBusy = false
            let deadline = ContinuousClock.now + .seconds(60)
            while replies.count < 2 && ContinuousClock.now < deadline {
                if !sawBothBusy {
                    try watcher.send([Data(), status])
                    var poller = ZMQPoller()
                    poller.add(watcher)
                    try poller.poll(timeout: .seconds(5))
                    if let frames = try watcher.receive(dontWait: true), let body = frames.last,
                        let busy = try Reply.decode(body).result?["services"]?.arrayValue?.first(where: { $0["name"] == "calc" })?["busy"]
                    {
                        sawBothBusy = busy == 2
                    }
                }
                var poller = ZMQPoller()
                for caller in callers { poller.add(caller) }
                try poller.poll(timeout: .milliseconds(10))
                for caller in callers {
                    if let frames = try caller.receive(dontWait: true), let body = frames.last { replies.append(try Reply.decode(body)) }
                }
            }
            return (sawBothBusy, replies)
        }
        #expect(sawBothBusy, "the gateway never showed both workers busy at once:\n\(stack.logs)")
        #expect(replies.count == 2 && replies.allSatisfy(\.isOK), "\(replies)")
        #expect(try await stack.serviceStatus("calc")?["requests"]?.intValue == 2)
    }

    @Test func workersReconnectAfterTheGatewayRestarts() async throws {
        try await TallyStack.with(workers: ["calc": 1]) { stack in
            #expect(await stack.gateway.stop())
            try await stack.startGateway()
            try await stack.waitForWorkers("calc", count: 1)
            let reply = try await stack.client().call("calc.tip", bill)
            #expect(reply.result?["total"] == "99.12")
        }
    }

    @Test func aStoppedWorkerLeavesAtOnceWithDisconnect() async throws {
        try await TallyStack.with(workers: ["calc": 1]) { stack in
            let worker = try stack.startWorker("calc")
            try await stack.waitForWorkers("calc", count: 2)
            #expect(await worker.stop(), "SIGTERM stops a worker gracefully")
            #expect(worker.exitStatus == 0)
            try await stack.waitUntil("the gateway counts one worker") {
                (try? await stack.serviceStatus("calc"))?["workers"]?.intValue == 1
            }
            // Noticed at once, by its DISCONNECT (with Tally's `drain`: it keeps its socket until the
            // gateway acknowledges), never by waiting out missed heartbeats.
            let log = stack.gateway.log
            #expect(log.contains("reason=drained"), "\(log)")
            #expect(!log.contains("missed"), "\(log)")
        }
    }
}
