import Foundation
import ZeroMQ

/// Raw ZeroMQ exchanges for tests that speak the wire format by hand (malformed frames, 7/MDP
/// clients and workers written from the frame layout). Each runs on a thread of its own.
public enum RawPeer {
    /// Connects a socket of `type`, sends `frames`, and returns the first message received within
    /// `timeout`, or nil if none came. With `curve`, the socket is a CURVE client with those keys.
    public static func exchange(
        _ frames: [Data], type: SocketType = .dealer, endpoint: String, context: ZMQContext,
        timeout: Duration = .seconds(5), curve: CurveClientKeys? = nil
    ) async throws -> [Data]? {
        try await DedicatedThread.run(name: "raw-peer") {
            let socket = try ZMQSocket(context: context, type: type)
            defer { socket.close() }
            if let curve { try socket.useCurve(curve) }
            try socket.connect(endpoint)
            try socket.send(frames)
            var poller = ZMQPoller()
            poller.add(socket)
            try poller.poll(timeout: timeout)
            return try socket.receive(dontWait: true)
        }
    }

    /// Connects one DEALER, sends every body at once as a plain JSON request (the empty
    /// delimiter, then the envelope), and returns the replies that came within `timeout`, in the
    /// order they came: fewer than were sent when some never came.
    public static func requests(
        _ bodies: [Data], endpoint: String, context: ZMQContext, timeout: Duration = .seconds(5)
    ) async throws -> [Data] {
        try await DedicatedThread.run(name: "raw-burst") {
            let socket = try ZMQSocket(context: context, type: .dealer)
            defer { socket.close() }
            try socket.connect(endpoint)
            for body in bodies { try socket.send([Data(), body]) }
            let deadline = ContinuousClock.now + timeout
            var poller = ZMQPoller()
            poller.add(socket)
            var replies: [Data] = []
            while replies.count < bodies.count, ContinuousClock.now < deadline {
                try poller.poll(timeout: deadline - ContinuousClock.now)
                while let frames = try socket.receive(dontWait: true) {
                    if let reply = frames.last { replies.append(reply) }
                }
            }
            return replies
        }
    }
}
