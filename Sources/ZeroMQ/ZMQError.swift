import CZeroMQ

/// An error reported by libzmq, carrying its errno so callers can tell the expected ones
/// (`EAGAIN`, `EHOSTUNREACH`, `ETERM`) from real failures.
public struct ZMQError: Error, Equatable, CustomStringConvertible, Sendable {
    public let errno: Int32
    public let operation: String

    public init(errno: Int32, operation: String) {
        self.errno = errno
        self.operation = operation
    }

    /// The error libzmq recorded for the calling thread.
    static func last(_ operation: String) -> ZMQError {
        ZMQError(errno: zmq_errno(), operation: operation)
    }

    public var description: String {
        "\(operation): \(String(cString: zmq_strerror(errno)))"
    }

    /// The context was shut down; the owning thread should close its sockets and leave.
    public var isContextTerminated: Bool { errno == ETERM }
    /// A non-blocking call had nothing to do.
    public var isWouldBlock: Bool { errno == EAGAIN }
    /// A ROUTER with `ZMQ_ROUTER_MANDATORY` was asked to send to a peer it does not know.
    public var isHostUnreachable: Bool { errno == EHOSTUNREACH }
}
