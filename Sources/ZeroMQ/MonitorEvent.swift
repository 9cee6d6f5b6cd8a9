import CZeroMQ
import Foundation

/// One event of a socket monitor (`zmq_socket_monitor`): what happened to a connection, and a
/// value whose meaning depends on it (a file descriptor, an errno, a reconnect interval).
public struct MonitorEvent: Sendable, Equatable {
    /// A `ZMQ_EVENT_*` constant.
    public let event: Int32
    public let value: UInt32

    /// Reads an event as libzmq sends it: the first frame holds the event (16 bits) then its
    /// value (32 bits), in host byte order; the second names the endpoint. Nil for anything else.
    public init?(frames: [Data]) {
        guard let head = frames.first, head.count == 6 else { return nil }
        event = Int32(head.withUnsafeBytes { $0.loadUnaligned(as: UInt16.self) })
        value = head.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 2, as: UInt32.self) }
    }
}
