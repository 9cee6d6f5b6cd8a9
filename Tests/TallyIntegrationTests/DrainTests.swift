import Foundation
import TallyObservability
import TallyProtocol
import TallyTesting
import Testing
import ZeroMQ

/// Stopping a process under load with SIGTERM, as systemd and orchestrators do: what it has
/// taken on is answered, not dropped.
@Suite struct DrainTests {
    private let bill: JSONValue = ["amount": "84.00", "tip_percent": "18", "split": 3, "currency": "USD"]
    /// Requests sent at once, each from its own client.
    private let load = 6

    /// Sends `load` tips at once, before any worker runs, so they all wait in the gateway's queue;
    /// then starts one slow worker that takes one at a time, and returns when it holds the first.
    private func sendLoad(_ stack: TallyStack) async throws -> (worker: TallyProcess, replies: [Task<Reply, any Error>]) {
        let replies = try (0..<load).map { _ in
            let client = try stack.client(timeout: .seconds(120))
            return Task { try await client.call("calc.tip", bill) }
        }
        try await stack.waitUntil("the gateway holds all \(load) requests") {
            (try? await stack.serviceStatus("calc"))?["queued"]?.intValue == Int64(load)
        }
        let worker = try stack.startWorker("calc", extraArguments: ["--capacity", "1", "--handling-delay-ms", "1000"])
        try await worker.waitUntilReady()
        try await stack.waitUntil("the worker holds the first request") {
            (try? await stack.serviceStatus("calc"))?["busy"]?.intValue == 1
        }
        return (worker, replies)
    }

    @Test func aGatewayStoppedUnderLoadAnswersWhatItAcceptedAndRefusesTheRest() async throws {
        var options = TallyStack.Options()
        options.gatewayArguments = ["--drain-timeout-ms", "90000", "--log-level", "debug"]
        try await TallyStack.with(options) { stack in
            let (_, replies) = try await sendLoad(stack)
            // One accepted request no worker can take yet (there is no accounts worker): it keeps
            // the drain open, however fast the calc worker gets through the rest, until the late
            // request below has been refused.
            let waiting = try stack.client(timeout: .seconds(120))
            let held = Task { try await waiting.call("accounts.list") }
            try await stack.waitUntil("the accounts request waits for a worker") {
                (try? await stack.serviceStatus("accounts"))?["queued"]?.intValue == 1
            }

            stack.gateway.signal(SIGTERM)
            try await stack.waitUntil("the gateway says it drains") {
                stack.gateway.readiness.status?.contains("draining") == true
            }
            let late = try await stack.client(timeout: .seconds(30)).call("calc.tip", bill)
            #expect(late.error?.code == .unavailable, "\(late)")
            #expect(late.error?.message.contains("shutting down") == true, "\(late)")

            // A worker for it now: the held request is answered (it has no token), and the drain ends.
            try stack.startWorker("accounts")
            let heldAnswer = try await stack.explained(held)
            #expect(heldAnswer.error?.code == .unauthenticated, "\(heldAnswer)")
            for reply in replies {
                let answer = try await stack.explained(reply)
                #expect(answer.result?["tip"] == "15.12", "\(answer)")
            }
            #expect(await stack.gateway.waitForExit(timeout: .seconds(60)))
            #expect(stack.gateway.exitStatus == 0, "\(stack.gateway.log)")
        }
    }

    /// The race of 7/MDP's DISCONNECT: the gateway sends the next request as the worker leaves.
    /// The worker holds one request; when it answers it, the gateway sends it the next one at
    /// once, while the worker is already on its way out. It answers that one too, before the
    /// gateway's acknowledgement of its leaving, instead of leaving it to be re-sent (or, were it
    /// a change without an idempotency key, failed `unavailable`).
    @Test func aWorkerStoppedUnderLoadAnswersWhatTheGatewaySentItAsItLeft() async throws {
        try await TallyStack.with() { stack in
            let (stopping, replies) = try await sendLoad(stack)

            stopping.signal(SIGTERM)
            #expect(await stopping.waitForExit(timeout: .seconds(60)))
            #expect(stopping.exitStatus == 0, "\(stopping.log)")
            // It answered the request it held and the one sent as it left (more, if the signal
            // came late): no other worker exists yet to answer them, none was sent back to the
            // queue, and it got nothing after the gateway acknowledged its leaving.
            try await stack.waitUntil("the gateway forgets the stopped worker") {
                (try? await stack.serviceStatus("calc"))?["workers"]?.intValue == 0
            }
            let calc = try await stack.serviceStatus("calc")
            let answered = calc?["requests"]?.intValue ?? 0
            #expect(answered >= 2, "\(calc.map { "\($0)" } ?? "no calc row")\n\(stack.gateway.log)")
            #expect(calc?["queued"]?.intValue == Int64(load) - answered, "\(calc.map { "\($0)" } ?? "no calc row")")
            #expect(!stack.gateway.log.contains("re-dispatching"), "\(stack.gateway.log)")
            #expect(stack.gateway.log.contains("reason=drained"), "\(stack.gateway.log)")
            // The rest wait for a worker.
            try await stack.startWorker("calc").waitUntilReady()
            for reply in replies {
                let answer = try await stack.explained(reply)
                #expect(answer.result?["tip"] == "15.12", "\(answer)")
            }
            #expect(!stack.gateway.log.contains("stopped before answering"), "\(stack.gateway.log)")
        }
    }

    /// Requests that reach a stopping gateway after it has answered everything it accepted (the
    /// issue: 128 sent a few milliseconds after SIGTERM got no reply at all) are answered
    /// `unavailable` while its sockets stay open; it closes once its client port has been quiet.
    @Test func aStoppingGatewayAnswersEveryRequestThatReachesItBeforeItCloses() async throws {
        var options = TallyStack.Options(workers: ["calc": 1])
        // A quiet period long enough to see the drain begin and send into it on a busy machine.
        options.gatewayArguments = ["--drain-timeout-ms", "60000", "--drain-quiet-ms", "3000"]
        try await TallyStack.with(options) { stack in
            stack.gateway.signal(SIGTERM)
            try await stack.waitUntil("the gateway says it drains") {
                stack.gateway.readiness.status?.contains("draining") == true
            }
            let burst = 128
            let requests = (0..<burst).map {
                Envelope(id: "late-\($0)", command: "calc.tip", args: bill, deadlineMs: 60_000).encoded()
            }
            let replies = try await RawPeer.requests(requests, endpoint: stack.frontend, context: stack.context, timeout: .seconds(30))
            #expect(replies.count == burst, "\(replies.count) of \(burst) answered\n\(stack.gateway.log)")
            for reply in replies.map({ try? Reply.decode($0) }) {
                #expect(reply?.error?.code == .unavailable && reply?.error?.message.contains("shutting down") == true, "\(String(describing: reply))")
            }
            // Quiet again, it closes: long before its drain timeout, and saying what it refused.
            #expect(await stack.gateway.waitForExit(timeout: .seconds(40)))
            #expect(stack.gateway.exitStatus == 0, "\(stack.gateway.log)")
            #expect(stack.gateway.log.contains("refused_while_draining=\(burst)"), "\(stack.gateway.log)")
        }
    }

    /// `GET /ready` answers 503 for as long as a gateway drains, so a load balancer stops sending
    /// before the sockets close; the port does not go silent at SIGTERM.
    @Test func aDrainingGatewaysReadyEndpointAnswers503UntilItCloses() async throws {
        let metrics = try #require(HTTPAddress("127.0.0.1:\(try freeLoopbackPort())"))
        var options = TallyStack.Options()
        // Neither the drain nor the held request may run out before the test is done with them,
        // however slowly a loaded machine gets there: the gateway stops only once the request is answered.
        options.gatewayArguments = ["--metrics", "\(metrics)", "--drain-timeout-ms", "600000"]
        try await TallyStack.with(options) { stack in
            #expect(try await get("/ready", metrics).status == 200)
            // An accepted request no worker can take yet keeps the drain open.
            let waiting = try stack.client(timeout: .seconds(600))
            let held = Task { try await waiting.call("calc.tip", bill) }
            try await stack.waitUntil("the request waits for a worker") {
                (try? await stack.serviceStatus("calc"))?["queued"]?.intValue == 1
            }

            stack.gateway.signal(SIGTERM)
            try await stack.waitUntil("the gateway says it drains") {
                stack.gateway.readiness.status?.contains("draining") == true
            }
            do {
                #expect(try await get("/ready", metrics).status == 503)
                #expect(try await get("/metrics", metrics).body.contains("tally_gateway_"))
            } catch {
                Issue.record("\(error)\n\(stack.processSummaries)\n\(stack.logs)")
                throw error
            }

            try stack.startWorker("calc")
            #expect(try await stack.explained(held).result?["tip"] == "15.12")
            #expect(await stack.gateway.waitForExit(timeout: .seconds(30)))
            #expect(stack.gateway.exitStatus == 0, "\(stack.gateway.log)")
        }
    }

    private func get(_ path: String, _ address: HTTPAddress) async throws -> HTTPProbe.Response {
        try await HTTPProbe.get(path, from: address, timeout: .seconds(10))
    }
}

extension TallyStack {
    /// The reply, or the error with what every process of the stack logged, to see where it went.
    fileprivate func explained(_ reply: Task<Reply, any Error>) async throws -> Reply {
        do {
            return try await reply.value
        } catch {
            Issue.record("\(error)\n\(processSummaries)\n\(logs)")
            throw error
        }
    }
}
