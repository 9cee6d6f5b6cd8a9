import NIOCore
import NIOPosix
import TallyObservability
import Testing

/// What `tally health --ready` is told when the other end is not a Tally HTTP endpoint; a working
/// endpoint's answers are covered through real processes (`MetricsThroughProcessesTests`).
@Suite struct HTTPProbeTests {
    @Test func aListenerThatNeverAnswersIsUnreachableWhenTheTimeoutRunsOut() async throws {
        // Only the timeout ends this wait (the listener neither answers nor closes), and only
        // the timeout says "no answer from": how long it took is the machine's business.
        try await withListener(answering: nil) { address in
            await #expect {
                _ = try await HTTPProbe.get("/ready", from: address, timeout: .milliseconds(300))
            } throws: { error in
                guard case HTTPProbe.Failure.unreachable(let why) = error else { return false }
                return why.contains("no answer from \(address)")
            }
        }
    }

    @Test func anAnswerThatIsNotHTTPIsMalformed() async throws {
        try await withListener(answering: "SSH-2.0-OpenSSH_9.6\r\n\r\n") { address in
            await #expect {
                _ = try await HTTPProbe.get("/ready", from: address, timeout: .seconds(10))
            } throws: { error in
                guard case HTTPProbe.Failure.malformed(let why) = error else { return false }
                return why.contains("did not answer HTTP")
            }
        }
    }

    @Test func aClosedPortIsUnreachable() async throws {
        let address = try await withListener(answering: nil) { $0 }  // bound, then closed again
        await #expect(throws: HTTPProbe.Failure.self) {
            _ = try await HTTPProbe.get("/ready", from: address, timeout: .seconds(10))
        }
    }

    /// Runs `body` with a TCP listener on a free loopback port that sends `answer` to each peer
    /// and closes the connection, or (nil) reads and never answers.
    @discardableResult
    private func withListener<T>(answering answer: String?, _ body: (HTTPAddress) async throws -> T) async throws -> T {
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let answer { try channel.pipeline.syncOperations.addHandler(FixedAnswer(text: answer)) }
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let address = try #require(HTTPAddress("127.0.0.1:\(listener.localAddress?.port ?? 0)"))
        do {
            let result = try await body(address)
            try await listener.close()
            return result
        } catch {
            try? await listener.close()
            throw error
        }
    }
}

/// Sends its text as soon as a peer connects, as an SSH server speaks first, then closes the
/// connection: often before the probe's request has gone out, whose write then fails.
private final class FixedAnswer: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    let text: String

    init(text: String) { self.text = text }

    func channelActive(context: ChannelHandlerContext) {
        let connection = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(NIOAny(ByteBuffer(string: text))).whenComplete { _ in connection.value.close(promise: nil) }
    }
}
