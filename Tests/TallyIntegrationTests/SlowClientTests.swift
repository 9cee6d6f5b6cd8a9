import Foundation
import TallyProtocol
import TallyTesting
import Testing
import ZeroMQ

/// A client that reads slower than it is answered is backpressure, not departure: its replies are
/// held within a bound, and past it its requests are not accepted until it reads again.
@Suite struct SlowClientTests {
    @Test func aClientThatDoesNotReadIsRefusedNewRequestsUntilItReads() async throws {
        var options = TallyStack.Options()
        options.gatewayArguments = ["--max-held-replies", "100"]
        try await TallyStack.with(options) { stack in
            let sent = 20_000
            let (received, answeredAfterwards) = try await DedicatedThread.run(name: "slow-client") { [context = stack.context, frontend = stack.frontend] in
                let socket = try ZMQSocket(context: context, type: .dealer)
                defer { socket.close() }
                try socket.connect(frontend)
                // Far more than the queues between us and the gateway hold, without reading.
                for number in 0..<sent {
                    try socket.send([Data(), Envelope(id: "p-\(number)", command: "system.ping").encoded()])
                }
                var poller = ZMQPoller()
                poller.add(socket)
                var received = 0
                // Everything the gateway accepted comes; a long silence means the rest were not accepted.
                while try poller.poll(timeout: .seconds(5)) > 0 {
                    while let frames = try socket.receive(dontWait: true) {
                        if (try? Reply.decode(frames.last ?? Data()))?.isOK == true { received += 1 }
                    }
                }
                // Having read, the client is accepted again.
                try socket.send([Data(), Envelope(id: "again", command: "system.ping").encoded()])
                try poller.poll(timeout: .seconds(30))
                let again = try socket.receive(dontWait: true).flatMap { try? Reply.decode($0.last ?? Data()) }
                return (received, again?.id == "again" && again?.isOK == true)
            }
            #expect(received > 100, "the held replies and those in the queues arrive")
            #expect(received < sent, "requests past the bound are not accepted")
            #expect(answeredAfterwards)
            let log = stack.gateway.log
            #expect(log.contains("is not reading its replies"), "\(log)")
            #expect(log.contains("reads its replies again"), "\(log)")
        }
    }
}
