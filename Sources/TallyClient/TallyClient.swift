import Foundation
import TallyProtocol
import ZeroMQ

/// Calls Tally from async Swift code: each call runs a `LazyPirateRequester` on a thread of its
/// own, so no Swift-concurrency thread ever blocks in `zmq_poll`.
///
/// Given several gateways, a try that gets no reply is sent again to the next one, within
/// `tries`, and later calls start at the gateway that answered last (see `LazyPirateRequester`).
/// A gateway nothing listens at is passed over at once, and when none listens the call fails with
/// `ClientError.noGateway` without waiting.
public final class TallyClient: Sendable {
    /// The gateways' client endpoints, in the order tried.
    public let endpoints: [String]
    /// The first (usually the only) gateway.
    public var endpoint: String { endpoints[0] }
    public let timeout: Duration
    public let tries: Int
    /// CURVE keys for a gateway that requires them; nil connects in plain text.
    public let curve: CurveClientKeys?
    private let context: ZMQContext
    /// One requester for every call, so that all of them start at the gateway that answered last.
    private let requester: LazyPirateRequester

    /// - Parameters:
    ///   - timeout: how long each try waits; the request's `deadline_ms` is set just under it so
    ///     the gateway gives up (and says so) before the client does.
    ///   - tries: attempts before `ClientError.noReply` (`noGateway`, at once, where nothing listens).
    ///   - curve: this client's key pair and the gateway's public key, when the gateway runs CURVE.
    public convenience init(
        endpoint: String, timeout: Duration = .seconds(5), tries: Int = 3, curve: CurveClientKeys? = nil, context: ZMQContext? = nil
    ) throws {
        try self.init(endpoints: [endpoint], timeout: timeout, tries: tries, curve: curve, context: context)
    }

    /// - Parameters:
    ///   - endpoints: several gateways' client endpoints, tried in turn; at least one.
    ///   - tries: attempts, over all the gateways, before `ClientError.noReply`; each waits `timeout`
    ///     (one at a gateway nothing listens at ends at once and does not count),
    ///     so no call takes much longer than `tries × timeout`. A change sent more than once must
    ///     carry an `idempotency_key`, or it may be applied twice.
    public init(
        endpoints: [String], timeout: Duration = .seconds(5), tries: Int = 3, curve: CurveClientKeys? = nil,
        context: ZMQContext? = nil
    ) throws {
        guard !endpoints.isEmpty else { throw ClientError.noEndpoints }
        self.endpoints = endpoints
        self.timeout = timeout
        self.tries = tries
        self.curve = curve
        let context = try context ?? ZMQContext()
        self.context = context
        requester = LazyPirateRequester(context: context, endpoints: endpoints, timeout: timeout, tries: tries, curve: curve)
    }

    /// Sends a command and decodes the reply. Error replies come back as `Reply` values with
    /// `isOK == false`; only a missing or unreadable reply throws.
    public func call(
        _ command: String, _ args: JSONValue = .object([:]), id: String? = nil, locale: String? = nil,
        idempotencyKey: String? = nil, token: String? = nil, deadline: Duration? = nil
    ) async throws -> Reply {
        let envelope = Envelope(
            id: id, command: command, args: args,
            deadlineMs: (deadline ?? Self.deadline(forTimeout: timeout)).roundedUpMilliseconds,
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
        let requester = requester
        return try await DedicatedThread.run(name: "tally-client") { try requester.request(body) }
    }
}
