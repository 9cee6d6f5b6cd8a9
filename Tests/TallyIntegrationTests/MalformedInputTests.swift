import Foundation
import TallyProtocol
import TallyTesting
import Testing
import ZeroMQ

/// Garbage on every socket: nothing crashes, and whoever can be answered is answered.
@Suite struct MalformedInputTests {
    private func errorReply(_ frames: [Data]?) throws -> TallyError? {
        try Reply.decode(try #require(frames?.last)).error
    }

    @Test func garbageOnTheFrontendIsAnsweredOrIgnored() async throws {
        try await TallyStack.with(workers: ["calc": 1]) { stack in
            func exchange(_ frames: [Data], timeout: Duration = .seconds(3)) async throws -> [Data]? {
                try await RawPeer.exchange(frames, endpoint: stack.frontend, context: stack.context, timeout: timeout)
            }
            // No empty delimiter: answered bare, saying so.
            let bare = try await exchange([Data("hello".utf8)])
            #expect(bare?.count == 1)
            #expect(try errorReply(bare)?.message.contains("delimiter") == true)
            // Binary garbage as the body.
            let binary = try await exchange([Data(), Data([0xff, 0x00, 0xfe, 0x01])])
            #expect(try errorReply(binary)?.code == .invalidArgument)
            // Too many frames for a plain request.
            let many = try await exchange([Data(), Data("a".utf8), Data("b".utf8), Data("c".utf8)])
            #expect(try errorReply(many)?.message.contains("one frame") == true)
            // 7/MDP header without a service: answered in 7/MDP framing (so a Majordomo client can
            // read it), marked as the gateway's own answer since no service says otherwise.
            let shortMDP = try await exchange([Data(), Data("MDPC01".utf8)])
            #expect(shortMDP == [Data(), Data("MDPC01".utf8), Data(), Majordomo.gatewayErrorMarker, Data("invalid_argument".utf8), try #require(shortMDP?.last)])
            // Without a body, for one of Tally's services: a JSON error reply in 7/MDP framing.
            let noBody = try await exchange([Data(), Data("MDPC01".utf8), Data("calc".utf8)])
            #expect(noBody?.prefix(3) == [Data(), Data("MDPC01".utf8), Data("calc".utf8)])
            #expect(try errorReply(noBody)?.code == .invalidArgument)
            // 7/MDP with two body frames, and with a body for the wrong service.
            let twoBodies = try await exchange([Data(), Data("MDPC01".utf8), Data("calc".utf8), Data("{}".utf8), Data("{}".utf8)])
            #expect(try errorReply(twoBodies)?.code == .invalidArgument)
            let mismatch = try await exchange([
                Data(), Data("MDPC01".utf8), Data("shopping".utf8), Data(#"{"command":"calc.tip"}"#.utf8),
            ])
            #expect(try errorReply(mismatch)?.field == "command")
            // More body frames than any 7/MDP request may carry: refused before they are read.
            let manyFrames = try await exchange(
                [Data(), Data("MDPC01".utf8), Data("my-echo".utf8)] + Array(repeating: Data(), count: Majordomo.maximumBodyFrames + 1))
            #expect(manyFrames?.prefix(5) == [Data(), Data("MDPC01".utf8), Data("my-echo".utf8), Majordomo.gatewayErrorMarker, Data("invalid_argument".utf8)])
            #expect(manyFrames.map { String(decoding: $0.last!, as: UTF8.self).contains("at most \(Majordomo.maximumBodyFrames) body frames") } == true)
            // A frame over the hard cap: the connection is dropped, nothing is answered...
            let huge = try await exchange([Data(), Data(count: 2 << 20)], timeout: .milliseconds(500))
            #expect(huge == nil)
            // ...and through all of it the gateway and the worker kept serving.
            let reply = try await stack.client().call("calc.tip", ["amount": "10.00", "tip_percent": "10", "currency": "USD"])
            #expect(reply.result?["tip"] == "1.00", "\(reply)")
            #expect(stack.gateway.isRunning)
        }
    }

    @Test func garbageOnTheBackendDoesNotDisturbTheGateway() async throws {
        try await TallyStack.with(workers: ["calc": 1]) { stack in
            func exchange(_ frames: [Data], timeout: Duration = .milliseconds(300)) async throws -> [Data]? {
                try await RawPeer.exchange(frames, endpoint: stack.backend, context: stack.context, timeout: timeout)
            }
            let header = Data("MDPW01".utf8)
            _ = try await exchange([Data("garbage".utf8)])
            _ = try await exchange([Data(), header, Data([0x09])])
            _ = try await exchange([Data(), header, Data([0x01])])  // READY without a service
            _ = try await exchange([Data(), header, Data([0x01]), Data("system".utf8)])  // reserved name
            // A heartbeat or reply from a worker the gateway does not know gets DISCONNECT, so a
            // worker that outlived a gateway restart registers again.
            let heartbeat = try await exchange([Data(), header, Data([0x04])], timeout: .seconds(3))
            #expect(heartbeat == [Data(), header, Data([0x05])])
            let reply = try await exchange([Data(), header, Data([0x03]), Data(count: 8), Data(), Data("{}".utf8)], timeout: .seconds(3))
            #expect(reply == [Data(), header, Data([0x05])])

            let services = try await stack.client().call("system.services")
            let names = services.result?["services"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
            #expect(!names.contains("system"))
            let tip = try await stack.client().call("calc.tip", ["amount": "10.00", "tip_percent": "10", "currency": "USD"])
            #expect(tip.isOK, "\(tip)")
        }
    }

    /// The test plays the gateway: a real `tally worker calc` connects to it and is fed garbage.
    @Test func aWorkerSurvivesMalformedRequests() async throws {
        let stack = try TallyStack()
        let endpoint = "ipc://\(stack.directory.path)/fake-gateway"
        let header = Data("MDPW01".utf8)
        let exchanges: [[Data]] = try await DedicatedThread.run(name: "fake-gateway") { [context = stack.context] in
            let router = try ZMQSocket(context: context, type: .router)
            defer { router.close() }
            try router.bind(endpoint)
            try stack.startWorker("calc", backend: endpoint)
            var poller = ZMQPoller()
            poller.add(router)
            func next() throws -> [Data] {
                while true {
                    // Long: a worker process that starts on a busy machine is late, not lost.
                    try poller.poll(timeout: .seconds(60))
                    guard let frames = try router.receive(dontWait: true) else {
                        throw StackError.timedOut(
                            detail: "the worker sends a message: nothing in 60 s", processes: stack.processSummaries, logs: stack.logs)
                    }
                    if frames.count == 4, frames[3] == Data([0x04]) { continue }  // heartbeat
                    return frames
                }
            }
            let ready = try next()
            let identity = ready[0]
            func request(_ body: [Data]) throws -> [Data] {
                try router.send([identity, Data(), header, Data([0x02]), Data("client-1".utf8), Data()] + body)
                return try next()
            }
            try router.send([identity, Data("junk".utf8)])
            try router.send([identity, Data(), header, Data([0x07])])
            return [
                ready,
                try request([Data([0xde, 0xad, 0xbe, 0xef])]),
                try request([Data("{}".utf8), Data("{}".utf8)]),
                try request([Data(#"{"command":"calc.tip","args":{"amount":"10.00","tip_percent":"10","currency":"USD"}}"#.utf8)]),
            ]
        }
        await stack.stop()
        // READY, with Tally's capacity frame (how many requests the worker takes at once) and its
        // request for the gateway's trace context (protocol 6.1).
        #expect(Array(exchanges[0].dropFirst().prefix(4)) == [Data(), header, Data([0x01]), Data("calc".utf8)], "READY layout")
        #expect(exchanges[0].count == 7 && Int(String(decoding: exchanges[0][5], as: UTF8.self)) ?? 0 > 1, "READY's capacity")
        #expect(exchanges[0].last == Majordomo.traceContextFrame, "READY asks for trace context")
        for reply in exchanges.dropFirst() {
            #expect(Array(reply[1...5]) == [Data(), header, Data([0x03]), Data("client-1".utf8), Data()], "REPLY layout")
        }
        #expect(try Reply.decode(exchanges[1][6]).error?.code == .invalidArgument)
        #expect(try Reply.decode(exchanges[2][6]).error?.code == .invalidArgument)
        #expect(try Reply.decode(exchanges[3][6]).result?["tip"] == "1.00")
    }
}
