import Foundation
import TallyProtocol
import TallyTesting
import Testing
import ZeroMQ

/// A client that floods the gateway cannot starve others: not of the service it floods (each
/// client has its own limit of requests waiting or running), nor of another service (each
/// service has its own queue).
@Suite struct FairnessTests {
    static let bill: JSONValue = ["amount": "84.00", "tip_percent": "18", "split": 3, "currency": "USD"]

    @Test func aClientOverItsLimitIsRefusedAloneAndAnotherClientOfTheSameServiceIsServed() async throws {
        var options = TallyStack.Options()
        options.gatewayArguments = ["--max-client-requests", "3"]
        try await TallyStack.with(options) { stack in
            // One connection pipelines four requests (a `TallyClient` call has a connection of its
            // own). No calc worker yet: the first three wait as long as the test may take.
            let envelopes = (1...4).map { Envelope(id: "f\($0)", command: "calc.tip", args: Self.bill, deadlineMs: 120_000) }
            async let flood = pipeline(envelopes, endpoint: stack.frontend, context: stack.context)
            try await stack.waitUntil("the flooder's three requests wait for a calc worker") {
                (try? await stack.serviceStatus("calc"))?["queued"]?.intValue == 3
            }
            // The same service still takes another client's request.
            let other = try stack.client(timeout: .seconds(90))
            async let others = other.call("calc.tip", Self.bill)
            try await stack.waitUntil("the other client's request waits beside them") {
                (try? await stack.serviceStatus("calc"))?["queued"]?.intValue == 4
            }
            try stack.startWorker("calc")
            let replies = try await flood
            let refused = try #require(replies["f4"])
            #expect(refused.error?.code == .resourceExhausted, "\(refused)")
            #expect(refused.error?.message.contains("--max-client-requests") == true, "\(refused)")
            for id in ["f1", "f2", "f3"] {
                #expect(replies[id]?.result?["tip"] == "15.12", "\(id): \(String(describing: replies[id]))")
            }
            let answered = try await others
            #expect(answered.result?["tip"] == "15.12", "\(answered)")
        }
    }

    @Test func aFloodOfOneServiceDoesNotStarveAnother() async throws {
        var options = TallyStack.Options()
        options.gatewayArguments = ["--max-queue-depth", "2"]
        try await TallyStack.with(options) { stack in
            let echo = try await stack.rawWorker("echo", .echo)
            let flooder = try stack.client(timeout: .seconds(90))
            async let first = flooder.call("calc.tip", Self.bill)
            async let second = flooder.call("calc.tip", Self.bill)
            try await stack.waitUntil("calc's queue is full") {
                (try? await stack.serviceStatus("calc"))?["queued"]?.intValue == 2
            }
            let refused = try await flooder.call("calc.tip", Self.bill)
            #expect(refused.error?.code == .resourceExhausted, "\(refused)")
            #expect(refused.error?.message.contains("2 calc requests are already waiting") == true, "\(refused)")

            // Another service is served while calc's queue is full.
            let header = Data("MDPC01".utf8)
            let echoed = try await RawPeer.exchange(
                [Data(), header, Data("echo".utf8), Data("still served".utf8)], endpoint: stack.frontend, context: stack.context,
                timeout: .seconds(30))
            #expect(echoed == [Data(), header, Data("echo".utf8), Data("still served".utf8)])

            try stack.startWorker("calc")
            #expect(try await first.result?["tip"] == "15.12")
            #expect(try await second.result?["tip"] == "15.12")
            try await echo.stop()
        }
    }
}

/// Sends `envelopes` down one DEALER connection without waiting, and collects a reply to each, by id.
private func pipeline(_ envelopes: [Envelope], endpoint: String, context: ZMQContext) async throws -> [String: Reply] {
    try await DedicatedThread.run(name: "test-pipelining-client") {
        let socket = try ZMQSocket(context: context, type: .dealer)
        defer { socket.close() }
        try socket.connect(endpoint)
        for envelope in envelopes { try socket.send([Data(), envelope.encoded()]) }
        var replies: [String: Reply] = [:]
        var poller = ZMQPoller()
        poller.add(socket)
        while replies.count < envelopes.count {
            try poller.poll(timeout: .seconds(150))
            guard let frames = try socket.receive(dontWait: true) else {
                throw StackError.timedOut(detail: "replies to pipelined requests: \(replies.count) in 150 s", processes: "", logs: "")
            }
            let reply = try Reply.decode(try #require(frames.last))
            replies[reply.id ?? ""] = reply
        }
        return replies
    }
}
