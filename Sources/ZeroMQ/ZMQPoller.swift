import CZeroMQ
import Foundation

/// A set of sockets and file descriptors to wait on with `zmq_poll`.
///
/// Call it only from a dedicated thread: `poll` blocks, and must never run on the Swift
/// concurrency pool.
public struct ZMQPoller {
    private var items: [zmq_pollitem_t] = []

    public init() {}

    /// Adds a socket to wait for input on; returns its index for `isReadable`.
    @discardableResult
    public mutating func add(_ socket: ZMQSocket) -> Int {
        items.append(zmq_pollitem_t(socket: socket.rawHandle, fd: -1, events: Int16(ZMQ_POLLIN), revents: 0))
        return items.count - 1
    }

    /// Adds a plain file descriptor (a `WakeupSignal`'s pipe, for example).
    @discardableResult
    public mutating func add(fileDescriptor: Int32) -> Int {
        items.append(zmq_pollitem_t(socket: nil, fd: fileDescriptor, events: Int16(ZMQ_POLLIN), revents: 0))
        return items.count - 1
    }

    /// Waits up to `timeoutMilliseconds` (-1: forever) for input. Returns how many items are ready;
    /// an interrupted wait (`EINTR`) returns 0 so the caller re-checks its timers.
    @discardableResult
    public mutating func poll(timeoutMilliseconds: Int) throws -> Int {
        for index in items.indices { items[index].revents = 0 }
        let rc = items.withUnsafeMutableBufferPointer {
            zmq_poll($0.baseAddress, Int32($0.count), timeoutMilliseconds)
        }
        if rc < 0 {
            let error = ZMQError.last("zmq_poll")
            if error.errno == EINTR { return 0 }
            throw error
        }
        return Int(rc)
    }

    public func isReadable(_ index: Int) -> Bool {
        items[index].revents & Int16(ZMQ_POLLIN) != 0
    }
}

extension ZMQPoller {
    /// Waits up to `timeout`, rounded up to whole milliseconds so a short wait never becomes a busy spin.
    @discardableResult
    public mutating func poll(timeout: Duration) throws -> Int {
        try poll(timeoutMilliseconds: timeout.roundedUpMilliseconds)
    }
}

extension Duration {
    /// Whole milliseconds, rounded up, never negative.
    public var roundedUpMilliseconds: Int {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        let ms = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int(max(0, ms))
    }

    public static func ms(_ value: Int) -> Duration { .milliseconds(value) }
}
