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
        let first = next.value % endpoints.count
        var tried: [String] = []
        for attempt in 0..<tries {
            let index = (first + attempt) % endpoints.count
            let endpoint = endpoints[index]
            tried.append(endpoint)
            // A fresh socket per try: a REQ socket that sent and got nothing back is stuck.
            let socket = try ZMQSocket(context: context, type: .req)
            defer { socket.close() }
            if let curve { try socket.useCurve(curve) }
            try socket.connect(endpoint)
            try socket.send([body])
            var poller = ZMQPoller()
            let socketIndex = poller.add(socket)
            if let stop { poller.add(fileDescriptor: stop.fileDescriptor) }
            try poller.poll(timeout: timeout)
            if stop?.isFired == true { break }
            if poller.isReadable(socketIndex), let reply = try socket.receive(dontWait: true) {
                next.value = index
                return reply
            }
            // Silence: this gateway may be gone, so whoever asks next starts at the next one.
            next.value = index + 1
        }
        throw ClientError.noReply(endpoint: Self.describe(tried), tries: tried.count, timeout: timeout)
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
