import Foundation
import TallyProtocol
import TallyTesting
import Testing

/// Stopping a process under load with SIGTERM, as systemd and orchestrators do: what it has
/// taken on is answered, not dropped.
@Suite struct DrainTests {
    private let bill: JSONValue = ["amount": "84.00", "tip_percent": "18", "split": 3, "currency": "USD"]
    /// Requests sent at once, each from its own client.
    private let load = 6

    /// Sends `load` tips at once; returns when the gateway holds them all (one running on the only
    /// worker, which takes one at a time, the rest queued behind it).
    private func sendLoad(_ stack: TallyStack) async throws -> [Task<Reply, any Error>] {
        let replies = try (0..<load).map { _ in
            let client = try stack.client(timeout: .seconds(90))
            return Task { try await client.call("calc.tip", bill) }
        }
        try await stack.waitUntil("the gateway holds all \(load) requests") {
            let status = try? await stack.serviceStatus("calc")
            return status?["busy"]?.intValue == 1 && status?["queued"]?.intValue == Int64(load - 1)
        }
        return replies
    }

    @Test func aGatewayStoppedUnderLoadAnswersWhatItAcceptedAndRefusesTheRest() async throws {
        var options = TallyStack.Options()
        options.gatewayArguments = ["--drain-timeout-ms", "90000"]
        try await TallyStack.with(options) { stack in
            try await stack.startWorker("calc", extraArguments: ["--capacity", "1", "--handling-delay-ms", "300"]).waitUntilReady()
            let replies = try await sendLoad(stack)

            stack.gateway.signal(SIGTERM)
            try await stack.waitUntil("the gateway says it drains") {
                stack.gateway.readiness.status?.contains("draining") == true
            }
            let late = try await stack.client(timeout: .seconds(30)).call("calc.tip", bill)
            #expect(late.error?.code == .unavailable, "\(late)")
            #expect(late.error?.message.contains("shutting down") == true, "\(late)")

            for reply in replies {
                let answer = try await reply.value
                #expect(answer.result?["tip"] == "15.12", "\(answer)")
            }
            #expect(await stack.gateway.waitForExit(timeout: .seconds(60)))
            #expect(stack.gateway.exitStatus == 0, "\(stack.gateway.log)")
        }
    }

    @Test func aWorkerStoppedUnderLoadAnswersTheRequestInHandBeforeItLeaves() async throws {
        try await TallyStack.with() { stack in
            let stopping = try stack.startWorker("calc", extraArguments: ["--capacity", "1", "--handling-delay-ms", "300"])
            try await stopping.waitUntilReady()
            let replies = try await sendLoad(stack)

            stopping.signal(SIGTERM)
            #expect(await stopping.waitForExit(timeout: .seconds(60)))
            #expect(stopping.exitStatus == 0, "\(stopping.log)")
            // The request it held was answered by it, not sent to another worker; the rest wait for one.
            try await stack.startWorker("calc").waitUntilReady()
            for reply in replies {
                let answer = try await reply.value
                #expect(answer.result?["tip"] == "15.12", "\(answer)")
            }
            #expect(!stack.gateway.log.contains("re-dispatching"), "\(stack.gateway.log)")
            #expect(!stack.gateway.log.contains("stopped before answering"), "\(stack.gateway.log)")
        }
    }
}
