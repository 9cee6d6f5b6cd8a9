import CZeroMQ
import Foundation

/// Counts the live connections of a bound socket (a PUB's subscribers, say), which libzmq does not
/// expose, through its socket monitor: each accepted connection is added by its file descriptor
/// and removed when it disconnects, a failed handshake included. Lives on the monitored socket's
/// thread like the socket itself: poll `socket`, then call `update()`.
public final class ConnectionMonitor {
    /// The PAIR end that receives the monitor's events; add it to the thread's poller.
    public let socket: ZMQSocket
    private var open: Set<UInt32> = []

    /// Connections open now.
    public var count: Int { open.count }

    /// Starts monitoring `target`; call it before `target` binds so no connection goes unseen.
    public init(watching target: ZMQSocket, context: ZMQContext) throws {
        let endpoint = "inproc://tally-monitor-\(UUID().uuidString)"
        try target.startMonitor(endpoint, events: ZMQ_EVENT_ACCEPTED | ZMQ_EVENT_DISCONNECTED)
        socket = try ZMQSocket(context: context, type: .pair)
        try socket.connect(endpoint)
    }

    /// Reads every event waiting, without blocking. Returns whether the count changed.
    @discardableResult
    public func update() throws -> Bool {
        var changed = false
        while let frames = try socket.receive(dontWait: true) {
            // libzmq's first frame: the event (16 bits) then its value (32 bits, here the file
            // descriptor), in host byte order; the second names the endpoint.
            guard let head = frames.first, head.count == 6 else { continue }
            let event = head.withUnsafeBytes { $0.loadUnaligned(as: UInt16.self) }
            let descriptor = head.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 2, as: UInt32.self) }
            switch Int32(event) {
            case ZMQ_EVENT_ACCEPTED: changed = open.insert(descriptor).inserted || changed
            case ZMQ_EVENT_DISCONNECTED: changed = open.remove(descriptor) != nil || changed
            default: break
            }
        }
        return changed
    }

    /// Closes the PAIR end; the monitor inside the watched socket ends when that socket closes.
    public func close() { socket.close() }
}
