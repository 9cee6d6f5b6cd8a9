import Foundation
import ZeroMQ

/// Sends one request and waits for its reply the way the ZeroMQ guide's Lazy Pirate client does:
/// poll with a timeout, and on silence close the REQ socket, open a new one and send again, up to
/// `tries` times. Blocking: call it from a dedicated thread (see `TallyClient` for async code).
public struct LazyPirateRequester: Sendable {
    public let context: ZMQContext
    public let endpoint: String
    /// How long to wait for each try.
    public let timeout: Duration
    public let tries: Int
    /// CURVE keys for a gateway that requires them; nil connects in plain text.
    public let curve: CurveClientKeys?

    public init(context: ZMQContext, endpoint: String, timeout: Duration, tries: Int, curve: CurveClientKeys? = nil) {
        self.context = context
        self.endpoint = endpoint
        self.timeout = timeout
        self.tries = max(1, tries)
        self.curve = curve
    }

    /// Sends `body` as one frame; returns the reply's frames.
    public func request(_ body: Data, stop: WakeupSignal? = nil) throws -> [Data] {
        for _ in 0..<tries {
            // A fresh socket per try: a REQ socket that sent and got nothing back is stuck.
            let socket = try ZMQSocket(context: context, type: .req)
            defer { socket.close() }
            if let curve { try socket.useCurve(curve) }
            try socket.connect(endpoint)
            try socket.send([body])
            var poller = ZMQPoller()
            let index = poller.add(socket)
            if let stop { poller.add(fileDescriptor: stop.fileDescriptor) }
            try poller.poll(timeout: timeout)
            if stop?.isFired == true { break }
            if poller.isReadable(index), let reply = try socket.receive(dontWait: true) {
                return reply
            }
        }
        throw ClientError.noReply(endpoint: endpoint, tries: tries, timeout: timeout)
    }
}
