import CZeroMQ
import Foundation

/// Counts the live connections of a bound socket (a PUB's subscribers, say), which libzmq does not
/// expose, through its socket monitor: each accepted connection is added by its file descriptor
/// and removed when it disconnects, a failed handshake included. Lives on one thread like a
/// socket: poll `socket`, then call `update()`. Other threads read the count through `gauge`.
public final class ConnectionMonitor {
    /// The PAIR end that receives the monitor's events; add it to the thread's poller.
    public let socket: ZMQSocket
    /// The count, for other threads.
    public let gauge: ConnectionGauge
    private var open: Set<UInt32> = []

    /// Connections open now.
    public var count: Int { open.count }

    /// The events a connection count needs.
    static let events = ZMQ_EVENT_ACCEPTED | ZMQ_EVENT_DISCONNECTED

    /// Starts monitoring `target`; call it before `target` binds so no connection goes unseen.
    /// A socket has one monitor at most: a second replaces the first.
    public convenience init(watching target: ZMQSocket, context: ZMQContext, gauge: ConnectionGauge = ConnectionGauge()) throws {
        let endpoint = "inproc://tally-monitor-\(UUID().uuidString)"
        try target.startMonitor(endpoint, events: ConnectionMonitor.events)
        try self.init(endpoint: endpoint, context: context, gauge: gauge)
    }

    /// Receives the events of a monitor started (or to be started: inproc connects before its
    /// bind) at `endpoint` by the socket's owner, as `serveCurve` does for the ZAP handler.
    public init(endpoint: String, context: ZMQContext, gauge: ConnectionGauge = ConnectionGauge()) throws {
        self.gauge = gauge
        socket = try ZMQSocket(context: context, type: .pair)
        try socket.connect(endpoint)
    }

    /// Reads every event waiting, without blocking. Returns whether the count changed.
    @discardableResult
    public func update() throws -> Bool {
        var changed = false
        while let frames = try socket.receive(dontWait: true) {
            // The value of both events is the connection's file descriptor.
            guard let event = MonitorEvent(frames: frames) else { continue }
            switch event.event {
            case ZMQ_EVENT_ACCEPTED: changed = open.insert(event.value).inserted || changed
            case ZMQ_EVENT_DISCONNECTED: changed = open.remove(event.value) != nil || changed
            default: break
            }
        }
        if changed { gauge.set(open.count) }
        return changed
    }

    /// Closes the PAIR end; the monitor inside the watched socket ends when that socket closes.
    public func close() { socket.close() }
}
