import Foundation
import Synchronization
import ZeroMQ

/// Sends one request and waits for its reply the way the ZeroMQ guide's Lazy Pirate client does:
/// poll with a timeout, and on silence close the REQ socket, open a new one and send again, up to
/// `tries` times. Blocking: call it from a dedicated thread (see `TallyClient` for async code).
///
/// Given several gateways, each new try goes to the next one in the list (the guide's Freelance
/// pattern, in its simplest, sequential form), and the requester remembers the gateway that last
/// answered and starts there next time. A try on another gateway is a resend like any other: it
/// happens only within `tries`, so a caller that must not send a request twice (one try, as for a
/// login) never fails over within that request; its next request starts at the next gateway.
///
/// A gateway that cannot be connected to at all (nothing listens at its tcp:// address, no socket
/// file is at its ipc:// path) is told from one that is slow: each try watches its connection
/// (`ConnectAttemptMonitor`), and a connection that fails is given up at once, not after
/// `timeout`. The request was never sent there, so the next gateway in the list is tried without
/// using up a try; when every gateway listed has failed so, the request fails with
/// `ClientError.noGateway`, in milliseconds. A gateway that takes the connection gets the whole
/// `timeout` to answer.
public struct LazyPirateRequester: Sendable {
    public let context: ZMQContext
    /// The gateways' client endpoints, in the order tried; never empty.
    public let endpoints: [String]
    /// How long to wait for each try.
    public let timeout: Duration
    public let tries: Int
    /// CURVE keys for a gateway that requires them; nil connects in plain text.
    public let curve: CurveClientKeys?
    /// Where the next request starts: the gateway that answered last, or the one after the last
    /// tried when none answered. Shared by copies of the requester.
    private let next: StartingEndpoint

    /// The first (usually the only) gateway.
    public var endpoint: String { endpoints[0] }

    public init(context: ZMQContext, endpoint: String, timeout: Duration, tries: Int, curve: CurveClientKeys? = nil) {
        self.init(context: context, endpoints: [endpoint], timeout: timeout, tries: tries, curve: curve)
    }

    /// - Parameter endpoints: the gateways to try, first one first; an empty list is taken as the
    ///   default gateway, `tcp://127.0.0.1:5555`.
    public init(context: ZMQContext, endpoints: [String], timeout: Duration, tries: Int, curve: CurveClientKeys? = nil) {
        self.context = context
        self.endpoints = endpoints.isEmpty ? ["tcp://127.0.0.1:5555"] : endpoints
        self.timeout = timeout
        self.tries = max(1, tries)
        self.curve = curve
        next = StartingEndpoint()
    }

    /// Sends `body` as one frame; returns the reply's frames.
    public func request(_ body: Data, stop: WakeupSignal? = nil) throws -> [Data] {
        var index = next.value % endpoints.count
        var tried: [String] = []
        var unreachable: [String] = []
        while tried.count < tries, unreachable.count < endpoints.count {
            let endpoint = endpoints[index]
            switch try attempt(body, at: endpoint, stop: stop) {
            case .reply(let reply):
                next.value = index
                return reply
            case .stopped:
                throw ClientError.noReply(endpoint: Self.describe(tried + [endpoint]), tries: tried.count + 1, timeout: timeout)
            case .unreachable:
                // Never sent: another gateway may take it, within the same tries.
                if !unreachable.contains(endpoint) { unreachable.append(endpoint) }
            case .silent:
                tried.append(endpoint)
            }
            // This gateway may be gone, so whoever asks next starts at the next one.
            index = (index + 1) % endpoints.count
            next.value = index
        }
        if tried.isEmpty { throw ClientError.noGateway(endpoint: Self.describe(unreachable)) }
        throw ClientError.noReply(endpoint: Self.describe(tried), tries: tried.count, timeout: timeout)
    }

    /// How one try ended.
    private enum Attempt {
        case reply([Data])
        /// Connected (or still connecting), and no reply within `timeout`.
        case silent
        /// The connection failed before it was ever made: the request was not sent.
        case unreachable
        case stopped
    }

    /// Sends `body` to `endpoint` on a fresh REQ socket (one that sent and got nothing back is
    /// stuck) and waits for the reply, until `timeout`, `stop`, or the connection failing.
    private func attempt(_ body: Data, at endpoint: String, stop: WakeupSignal?) throws -> Attempt {
        let socket = try ZMQSocket(context: context, type: .req)
        defer { socket.close() }
        if let curve { try socket.useCurve(curve) }
        let connection = try ConnectAttemptMonitor(watching: socket, context: context)
        defer { connection.close() }
        try socket.connect(endpoint)
        try socket.send([body])
        var poller = ZMQPoller()
        let socketIndex = poller.add(socket)
        let connectionIndex = poller.add(connection.socket)
        if let stop { poller.add(fileDescriptor: stop.fileDescriptor) }
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            try poller.poll(timeout: deadline - ContinuousClock.now)
            if stop?.isFired == true { return .stopped }
            if poller.isReadable(socketIndex), let reply = try socket.receive(dontWait: true) { return .reply(reply) }
            if poller.isReadable(connectionIndex), try connection.update() == .failed { return .unreachable }
        }
        return .silent
    }

    /// The endpoints tried, each once, in the order first tried: "tcp://a" or "tcp://a and tcp://b".
    private static func describe(_ tried: [String]) -> String {
        var distinct: [String] = []
        for endpoint in tried where !distinct.contains(endpoint) { distinct.append(endpoint) }
        if distinct.count <= 1 { return distinct.first ?? "" }
        return distinct.dropLast().joined(separator: ", ") + " and " + distinct[distinct.count - 1]
    }
}

/// The index a requester starts its next request at, shared between threads.
private final class StartingEndpoint: Sendable {
    private let index = Mutex(0)

    var value: Int {
        get { index.withLock { $0 } }
        set { index.withLock { $0 = newValue } }
    }
}
