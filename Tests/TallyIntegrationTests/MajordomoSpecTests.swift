import Foundation
import TallyProtocol
import TallyTesting
import Testing
import ZeroMQ

/// The gateway as a 7/MDP broker, exactly, to Majordomo clients and workers written from the
/// specification alone (frames by hand, no Tally code): opaque multi-frame bodies, an asynchronous
/// client with thousands of requests in flight, any service name the spec allows.
@Suite struct MajordomoSpecTests {
    private let client = Data("MDPC01".utf8)
    private let worker = Data("MDPW01".utf8)

    /// The guide's asynchronous client (mdclient2): every request sent at once on a DEALER, then
    /// every reply read. It does not read while it sends, so its queue fills and the gateway must
    /// hold its replies rather than drop them. Bodies are three frames, one binary, one empty.
    @Test func anAsynchronousClientGetsEveryReplyToManyRequestsInFlight() async throws {
        var options = TallyStack.Options()
        // Every request waits for a worker at once; none may be refused for the queue's length,
        // nor for the one client having that many waiting.
        options.gatewayArguments = ["--max-queue-depth", "100000", "--max-client-requests", "100000", "--default-deadline-ms", "120000"]
        try await TallyStack.with(options) { stack in
            let workers = [try await stack.rawWorker("my-echo", .echo), try await stack.rawWorker("my-echo", .echo, expectWorkers: 2)]
            let count = 20_000
            let (replies, malformed) = try await DedicatedThread.run(name: "mdp-async-client") { [context = stack.context, frontend = stack.frontend, client] in
                let socket = try ZMQSocket(context: context, type: .dealer)
                defer { socket.close() }
                try socket.connect(frontend)
                for number in 0..<count {
                    try socket.send([Data(), client, Data("my-echo".utf8)] + Self.body(number))
                }
                var seen = [Int](repeating: 0, count: count)
                var malformed: [[Data]] = []
                var poller = ZMQPoller()
                poller.add(socket)
                var received = 0
                while received < count {
                    // Generous: a loaded machine is slow, not wrong.
                    guard try poller.poll(timeout: .seconds(60)) > 0 else { break }
                    while let frames = try socket.receive(dontWait: true) {
                        received += 1
                        guard frames.count == 6, Array(frames.prefix(3)) == [Data(), client, Data("my-echo".utf8)],
                            let number = Self.number(frames[4]), number < count, Array(frames[3...]) == Self.body(number)
                        else {
                            malformed.append(frames)
                            continue
                        }
                        seen[number] += 1
                    }
                }
                return (seen, malformed)
            }
            #expect(malformed.isEmpty, "\(malformed.prefix(3))")
            #expect(replies.allSatisfy { $0 == 1 }, "\(replies.filter { $0 == 0 }.count) requests unanswered, \(replies.filter { $0 > 1 }.count) answered twice")
            #expect(!stack.gateway.log.contains("not reading"), "\(stack.gateway.log)")
            for worker in workers { try await worker.stop() }
        }
    }

    private static func body(_ number: Int) -> [Data] {
        [Data("Hello world".utf8), withUnsafeBytes(of: UInt32(number).bigEndian) { Data($0) } + Data([0x00, 0xff]), Data()]
    }

    private static func number(_ frame: Data) -> Int? {
        guard frame.count == 6 else { return nil }
        return frame.prefix(4).reduce(0) { $0 << 8 | Int($1) }
    }

    @Test func serviceNamesAsTheSpecAllowsAreReachable() async throws {
        try await TallyStack.with() { stack in
            for name in ["Echo", "my-echo", "echo.v2"] {
                let echo = try await stack.rawWorker(name, .echo)
                let reply = try await RawPeer.exchange(
                    [Data(), client, Data(name.utf8), Data("Hello world".utf8), Data("second frame".utf8)],
                    endpoint: stack.frontend, context: stack.context)
                #expect(reply == [Data(), client, Data(name.utf8), Data("Hello world".utf8), Data("second frame".utf8)], "\(name)")
                let mmi = try await RawPeer.exchange(
                    [Data(), client, Data("mmi.service".utf8), Data(name.utf8)], endpoint: stack.frontend, context: stack.context)
                #expect(mmi?.last == Data("200".utf8), "\(name)")
                try await echo.stop()
            }
        }
    }

    @Test func reservedAndUnprintableNamesAreRefusedOnReady() async throws {
        try await TallyStack.with() { stack in
            let refused = ["system", "mmi", "mmi.echo", "system.x", "has space", "tab\there", "é"]
            for name in refused {
                let answer = try await RawPeer.exchange(
                    [Data(), worker, Data([0x01]), Data(name.utf8)], endpoint: stack.backend, context: stack.context)
                #expect(answer == [Data(), worker, Data([0x05])], "READY \(name.debugDescription) gets DISCONNECT")
            }
            let services = try await stack.client().call("system.services")
            let names = services.result?["services"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
            #expect(Set(names).isDisjoint(with: refused), "\(names)")
        }
    }

    /// The gateway's own answers to a client of a service Tally does not define are three frames
    /// no reply of that service's workers is: the marker, the code and the message.
    @Test func theGatewaysOwnAnswersToOtherServicesAreMarked() async throws {
        var options = TallyStack.Options()
        options.gatewayArguments = ["--default-deadline-ms", "300"]
        try await TallyStack.with(options) { stack in
            func ask(_ service: String, _ body: [Data] = [Data("Hello".utf8)]) async throws -> [Data]? {
                try await RawPeer.exchange([Data(), client, Data(service.utf8)] + body, endpoint: stack.frontend, context: stack.context)
            }
            let unknown = try await ask("nosuch-echo")
            #expect(unknown?.prefix(5) == [Data(), client, Data("nosuch-echo".utf8), Majordomo.gatewayErrorMarker, Data("unimplemented".utf8)])
            #expect(unknown?.count == 6)

            let sleepy = try await stack.rawWorker("sleepy-echo", .swallow)
            let late = try await ask("sleepy-echo")
            #expect(late?.prefix(5) == [Data(), client, Data("sleepy-echo".utf8), Majordomo.gatewayErrorMarker, Data("deadline_exceeded".utf8)])
            #expect(late.map { String(decoding: $0[5], as: UTF8.self) }?.contains("sleepy-echo") == true, "\(late ?? [])")

            // No body frame at all is a framing error, answered in 7/MDP framing and marked.
            let empty = try await ask("sleepy-echo", [])
            #expect(empty?.prefix(5) == [Data(), client, Data("sleepy-echo".utf8), Majordomo.gatewayErrorMarker, Data("invalid_argument".utf8)])
            try await sleepy.stop()
        }
    }

    /// Tally's extension (docs/protocol.md 6.2): DISCONNECT with a `drain` frame is acknowledged
    /// with DISCONNECT, after which the worker is sent nothing, and its reply to the request it
    /// still holds reaches the client.
    @Test func aDrainingWorkerIsAcknowledgedAndItsLastReplyStillArrives() async throws {
        try await TallyStack.with() { stack in
            let leaving = Task { [context = stack.context, backend = stack.backend, worker] in
                try await DedicatedThread.run(name: "mdp-draining-worker") { () -> [Data]? in
                    let socket = try ZMQSocket(context: context, type: .dealer)
                    defer { socket.close() }
                    try socket.setLinger(milliseconds: 1000)
                    try socket.connect(backend)
                    try socket.send([Data(), worker, Data([0x01]), Data("drainy".utf8)])
                    var poller = ZMQPoller()
                    poller.add(socket)
                    /// The next message other than the gateway's heartbeats (its welcome among them).
                    func next() throws -> [Data]? {
                        while try poller.poll(timeout: .seconds(30)) > 0, let frames = try socket.receive(dontWait: true) {
                            if frames.prefix(3) != [Data(), worker, Data([0x04])] { return frames }
                        }
                        return nil
                    }
                    guard let request = try next(), request.count == 6, request[2] == Data([0x02]) else { return nil }
                    try socket.send([Data(), worker, Data([0x05]), Data("drain".utf8)])
                    let acknowledgement = try next()
                    try socket.send([Data(), worker, Data([0x03]), request[3], Data(), Data("Hello back".utf8)])
                    return acknowledgement
                }
            }
            try await stack.waitForWorkers("drainy", count: 1)
            let reply = try await RawPeer.exchange(
                [Data(), client, Data("drainy".utf8), Data("Hello".utf8)], endpoint: stack.frontend, context: stack.context,
                timeout: .seconds(30))
            #expect(try await leaving.value == [Data(), worker, Data([0x05])], "the drain is acknowledged with DISCONNECT")
            #expect(reply == [Data(), client, Data("drainy".utf8), Data("Hello back".utf8)], "\(reply ?? [])")
            try await stack.waitUntil("the drained worker is forgotten") {
                (try? await stack.serviceStatus("drainy"))?["workers"]?.intValue == 0
            }
            #expect(stack.gateway.log.contains("reason=drained"), "\(stack.gateway.log)")
        }
    }

    /// 7/MDP: a REPLY from a worker that holds no request is answered with DISCONNECT.
    @Test func aReplyFromAWorkerHoldingNoRequestGetsDisconnect() async throws {
        try await TallyStack.with() { stack in
            let answers = try await DedicatedThread.run(name: "mdp-rogue-worker") { [context = stack.context, backend = stack.backend, worker] in
                let socket = try ZMQSocket(context: context, type: .dealer)
                defer { socket.close() }
                try socket.connect(backend)
                var poller = ZMQPoller()
                poller.add(socket)
                try socket.send([Data(), worker, Data([0x01]), Data("rogue".utf8)])
                try poller.poll(timeout: .seconds(30))
                let acknowledged = try socket.receive(dontWait: true)
                try socket.send([Data(), worker, Data([0x03]), Data(count: 8), Data(), Data("unasked".utf8)])
                // The gateway's periodic heartbeats may come first.
                while try poller.poll(timeout: .seconds(30)) > 0, let frames = try socket.receive(dontWait: true) {
                    if frames != [Data(), worker, Data([0x04])] { return [acknowledged, frames] }
                }
                return [acknowledged, nil]
            }
            // Tally's welcome: a heartbeat with one more frame, `outcome`, that a plain worker ignores.
            #expect(answers[0] == [Data(), worker, Data([0x04]), Data("outcome".utf8)], "READY is acknowledged with a heartbeat")
            #expect(answers[1] == [Data(), worker, Data([0x05])], "the unasked REPLY gets DISCONNECT")
            try await stack.waitUntil("the rogue worker is forgotten") {
                (try? await stack.serviceStatus("rogue"))?["workers"]?.intValue == 0
            }
        }
    }
}
