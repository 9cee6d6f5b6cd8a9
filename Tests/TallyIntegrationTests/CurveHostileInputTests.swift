import Foundation
import TallyProtocol
import TallyTesting
import Testing
import ZeroMQ

/// Garbage and oversized frames on every socket with CURVE on, from a peer with an allowed key
/// and from one with none: every process stays up and keeps serving legitimate peers.
@Suite struct CurveHostileInputTests {
    static let tip: JSONValue = ["amount": "84.00", "tip_percent": "18", "split": 3, "currency": "USD"]

    @Test func garbageAndOversizedFramesOnEverySocketLeaveEveryProcessServing() async throws {
        try await TallyStack.with(TallyStack.Options(workers: ["calc": 1], curve: true)) { stack in
            let curve = try #require(stack.curve)
            let notifier = try await stack.startNotifier()
            let context = stack.context
            let garbage = [Data([0xde, 0xad, 0xbe, 0xef]), Data("{not json".utf8), Data(count: 3)]

            // Gateway frontend: an allowed client is answered why its garbage is refused; a frame
            // over the hard cap drops its connection unanswered; without a key nothing gets through.
            let client = try curve.clientKeys("client")
            let answered = try await RawPeer.exchange(
                [Data()] + garbage.prefix(1), endpoint: stack.frontend, context: context, timeout: .seconds(30), curve: client)
            #expect(try Reply.decode(try #require(answered?.last)).error?.code == .invalidArgument)
            #expect(try await RawPeer.exchange(
                [Data(), Data(count: 2 << 20)], endpoint: stack.frontend, context: context, timeout: .milliseconds(500), curve: client) == nil)
            for frames in [garbage, [Data(), Data(count: 2 << 20)]] {
                #expect(try await RawPeer.exchange(frames, endpoint: stack.frontend, context: context, timeout: .milliseconds(500)) == nil)
            }

            // Gateway backend: a worker key's garbage is ignored, a READY-less REPLY gets DISCONNECT,
            // a frame over the workers' cap (64 MiB) drops the connection; without a key, nothing.
            let worker = try curve.clientKeys("worker")
            let header = Data("MDPW01".utf8)
            _ = try await RawPeer.exchange(garbage, endpoint: stack.backend, context: context, timeout: .milliseconds(300), curve: worker)
            let unknownReply = try await RawPeer.exchange(
                [Data(), header, Data([0x03]), Data(count: 8), Data(), Data("{}".utf8)], endpoint: stack.backend, context: context,
                timeout: .seconds(30), curve: worker)
            #expect(unknownReply == [Data(), header, Data([0x05])])
            #expect(try await RawPeer.exchange(
                [Data(), header, Data([0x03]), Data(count: 8), Data(), Data(count: (64 << 20) + 1)], endpoint: stack.backend,
                context: context, timeout: .milliseconds(500), curve: worker) == nil)
            _ = try await RawPeer.exchange(garbage, endpoint: stack.backend, context: context, timeout: .milliseconds(300))

            // Notifier inlet: a worker key's garbage events are dropped, an event over 1 MiB drops
            // the publisher; without a key nothing arrives.
            try await publishRaw(
                [[Data("shopping.price_changed".utf8), Data("{not json".utf8)], garbage, [Data("x".utf8), Data(count: 2 << 20)]],
                endpoint: stack.eventsEndpoint, context: context, curve: try curve.clientKeys("worker", server: "notifier"))
            _ = try await RawPeer.exchange(
                [Data("shopping.price_changed".utf8), Data(count: 2 << 20)], type: .xpub, endpoint: stack.eventsEndpoint, context: context,
                timeout: .milliseconds(300))

            // Alert outlet: a subscriber key's garbage is ignored, a message over 64 KiB drops the
            // subscriber; without a key nothing gets through. (The large message does not start with
            // 1, a subscription: an XSUB keeps its own subscriptions in a trie a node per byte, and
            // libzmq overflows the stack freeing a 1 MiB one, in the sender's process.)
            let subscriber = try curve.clientKeys("subscriber", server: "notifier")
            for frames in [garbage, [Data([0x02]) + Data(count: 1 << 20)]] {
                _ = try await RawPeer.exchange(
                    frames, type: .xsub, endpoint: stack.alertsEndpoint, context: context, timeout: .milliseconds(300), curve: subscriber)
                _ = try await RawPeer.exchange(frames, type: .xsub, endpoint: stack.alertsEndpoint, context: context, timeout: .milliseconds(300))
            }

            // Every process is up and serves a legitimate peer on every socket.
            #expect(stack.gateway.isRunning)
            #expect(notifier.isRunning)
            let reply = try await stack.client().call("calc.tip", Self.tip)
            #expect(reply.result?["tip"] == "15.12", "\(reply)")
            let watch = try stack.startWatch(["--since", "0"], token: try stack.annToken())
            try await stack.publish([priceChanged(1)])
            try await stack.waitUntil("the watch shows the genuine alert") { !watchedAlerts(watch).isEmpty }
            #expect(watchedAlerts(watch).compactMap { $0["event_id"]?.stringValue } == ["evt-milk-1"])
            #expect(stack.gateway.isRunning)
            #expect(notifier.isRunning)
        }
    }
}

/// Publishes raw messages to the notifier's inlet with `curve`, once the inlet has subscribed
/// (an XPUB hears the subscription; a PUB would drop what it sends before then).
private func publishRaw(_ messages: [[Data]], endpoint: String, context: ZMQContext, curve: CurveClientKeys) async throws {
    try await DedicatedThread.run(name: "test-hostile-publisher") {
        let socket = try ZMQSocket(context: context, type: .xpub)
        defer { socket.close() }
        try socket.setLinger(milliseconds: 2000)
        try socket.useCurve(curve)
        try socket.connect(endpoint)
        var poller = ZMQPoller()
        poller.add(socket)
        try poller.poll(timeout: .seconds(60))
        guard try socket.receive(dontWait: true)?.first?.first == 1 else {
            throw StackError.timedOut(detail: "the notifier subscribes to \(endpoint): no subscription in 60 s", processes: "", logs: "")
        }
        for message in messages { try socket.send(message) }
    }
}
