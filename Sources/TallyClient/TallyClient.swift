import Foundation
import TallyProtocol
import ZeroMQ

/// Calls Tally from async Swift code: each call runs a `LazyPirateRequester` on a thread of its
/// own, so no Swift-concurrency thread ever blocks in `zmq_poll`.
public final class TallyClient: Sendable {
    public let endpoint: String
    public let timeout: Duration
    public let tries: Int
    private let context: ZMQContext

    /// - Parameters:
    ///   - timeout: how long each try waits; the request's `deadline_ms` is set just under it so
    ///     the gateway gives up (and says so) before the client does.
    ///   - tries: attempts before `ClientError.noReply`.
    public init(endpoint: String, timeout: Duration = .seconds(5), tries: Int = 3, context: ZMQContext? = nil) throws {
        self.endpoint = endpoint
        self.timeout = timeout
        self.tries = tries
        self.context = try context ?? ZMQContext()
    }

    /// Sends a command and decodes the reply. Error replies come back as `Reply` values with
    /// `isOK == false`; only a missing or unreadable reply throws.
    public func call(
        _ command: String, _ args: JSONValue = .object([:]), id: String? = nil, locale: String? = nil,
        idempotencyKey: String? = nil, token: String? = nil, deadline: Duration? = nil
    ) async throws -> Reply {
        let envelope = Envelope(
            id: id, command: command, args: args,
            deadlineMilliseconds: (deadline ?? Self.deadline(forTimeout: timeout)).roundedUpMilliseconds,
            idempotencyKey: idempotencyKey, token: token, locale: locale)
        return try await call(envelope)
    }

    public func call(_ envelope: Envelope) async throws -> Reply {
        let frames = try await send(envelope.encoded())
        guard frames.count == 1 else { throw ClientError.malformedReply("\(frames.count) frames") }
        do {
            return try Reply.decode(frames[0])
        } catch {
            throw ClientError.malformedReply(String(decoding: frames[0].prefix(200), as: UTF8.self))
        }
    }

    /// The deadline to ask of the gateway when the client waits `timeout`: a little shorter, so the
    /// gateway's `unavailable` or `deadline_exceeded` arrives while the client is still listening.
    public static func deadline(forTimeout timeout: Duration) -> Duration {
        let margin = min(max(timeout / 10, .milliseconds(1)), .milliseconds(250))
        return max(timeout - margin, .milliseconds(1))
    }

    /// Sends raw bytes as a one-frame request and returns the raw reply frames.
    public func send(_ body: Data) async throws -> [Data] {
        let requester = LazyPirateRequester(context: context, endpoint: endpoint, timeout: timeout, tries: tries)
        return try await DedicatedThread.run(name: "tally-client") { try requester.request(body) }
    }
}
