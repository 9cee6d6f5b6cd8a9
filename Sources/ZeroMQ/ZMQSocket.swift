import CZeroMQ
import Foundation

/// One libzmq socket. Not `Sendable`: a ZeroMQ socket belongs to the thread that uses it,
/// so create it on that thread and close it there.
///
/// LINGER defaults to 0 so that closing never blocks shutdown on unsent messages; callers that
/// want a grace period set `linger` explicitly.
public final class ZMQSocket {
    public let type: SocketType
    private let context: ZMQContext
    private var handle: UnsafeMutableRawPointer?

    public init(context: ZMQContext, type: SocketType) throws {
        guard let handle = zmq_socket(context.handle, type.rawValue) else {
            throw ZMQError.last("zmq_socket")
        }
        self.context = context
        self.type = type
        self.handle = handle
        try setInt(ZMQ_LINGER, 0)
    }

    deinit { close() }

    /// Closes the socket. Idempotent: the handle is released exactly once.
    public func close() {
        guard let handle else { return }
        zmq_close(handle)
        self.handle = nil
    }

    public var isClosed: Bool { handle == nil }

    private func live(_ operation: String) throws -> UnsafeMutableRawPointer {
        guard let handle else { throw ZMQError(errno: ENOTSOCK, operation: operation) }
        return handle
    }

    // MARK: Endpoints

    public func bind(_ endpoint: String) throws {
        guard zmq_bind(try live("zmq_bind"), endpoint) == 0 else { throw ZMQError.last("bind \(endpoint)") }
    }

    public func connect(_ endpoint: String) throws {
        guard zmq_connect(try live("zmq_connect"), endpoint) == 0 else { throw ZMQError.last("connect \(endpoint)") }
    }

    /// The endpoint last bound, with the real port when the bind asked for `*`.
    public var lastEndpoint: String {
        get throws {
            var buffer = [CChar](repeating: 0, count: 1024)
            var size = buffer.count
            guard zmq_getsockopt(try live("getsockopt"), ZMQ_LAST_ENDPOINT, &buffer, &size) == 0 else {
                throw ZMQError.last("getsockopt ZMQ_LAST_ENDPOINT")
            }
            return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    // MARK: Options

    public func setInt(_ option: Int32, _ value: Int32) throws {
        var value = value
        guard zmq_setsockopt(try live("setsockopt"), option, &value, MemoryLayout<Int32>.size) == 0 else {
            throw ZMQError.last("setsockopt \(option)")
        }
    }

    public func setInt64(_ option: Int32, _ value: Int64) throws {
        var value = value
        guard zmq_setsockopt(try live("setsockopt"), option, &value, MemoryLayout<Int64>.size) == 0 else {
            throw ZMQError.last("setsockopt \(option)")
        }
    }

    public func setBytes(_ option: Int32, _ value: Data) throws {
        let handle = try live("setsockopt")
        let rc = value.withUnsafeBytes { zmq_setsockopt(handle, option, $0.baseAddress, value.count) }
        guard rc == 0 else { throw ZMQError.last("setsockopt \(option)") }
    }

    /// Milliseconds to keep unsent messages after `close()`; 0 drops them at once.
    public func setLinger(milliseconds: Int32) throws { try setInt(ZMQ_LINGER, milliseconds) }

    /// ROUTER only: fail with `EHOSTUNREACH` instead of silently dropping a message to an unknown peer.
    public func setRouterMandatory(_ on: Bool) throws { try setInt(ZMQ_ROUTER_MANDATORY, on ? 1 : 0) }

    /// Largest single frame accepted; a peer that sends a bigger one is disconnected by libzmq.
    public func setMaxMessageSize(_ bytes: Int64) throws { try setInt64(ZMQ_MAXMSGSIZE, bytes) }

    public func setRoutingID(_ id: Data) throws { try setBytes(ZMQ_ROUTING_ID, id) }

    public func subscribe(_ prefix: Data = Data()) throws { try setBytes(ZMQ_SUBSCRIBE, prefix) }

    /// libzmq's connection heartbeats (ZMTP PING/PONG, sent and answered by its I/O thread): a PING
    /// every `interval`, and the connection dropped when nothing has arrived for `timeout`, on this
    /// side and (through the PING's time-to-live) on the peer's. Set before `bind` or `connect`.
    public func setConnectionHeartbeat(interval: Duration, timeout: Duration) throws {
        let timeoutMilliseconds = Int32(clamping: max(timeout.roundedUpMilliseconds, 100))
        try setInt(ZMQ_HEARTBEAT_IVL, Int32(clamping: interval.roundedUpMilliseconds))
        try setInt(ZMQ_HEARTBEAT_TIMEOUT, timeoutMilliseconds)
        try setInt(ZMQ_HEARTBEAT_TTL, timeoutMilliseconds)
    }

    public func setHighWaterMarks(send: Int32, receive: Int32) throws {
        try setInt(ZMQ_SNDHWM, send)
        try setInt(ZMQ_RCVHWM, receive)
    }

    /// Starts libzmq's socket monitor: the socket reports the `events` (a mask of `ZMQ_EVENT_*`)
    /// as two-frame messages on a PAIR socket it binds at `endpoint` (`inproc://...`).
    public func startMonitor(_ endpoint: String, events: Int32) throws {
        guard zmq_socket_monitor(try live("zmq_socket_monitor"), endpoint, events) == 0 else {
            throw ZMQError.last("zmq_socket_monitor \(endpoint)")
        }
    }

    /// Stops the monitor `startMonitor` started: no event is sent after this returns. Call it
    /// before closing the socket that reads the events: libzmq sends an event with a blocking
    /// send, so one sent to a monitor whose reader is gone blocks the sending thread (the
    /// context's I/O thread, for a connection's events) for good.
    public func stopMonitor() {
        guard let handle else { return }
        _ = zmq_socket_monitor(handle, nil, 0)
    }

    // MARK: Messages

    /// Sends all frames as one multipart message. Returns `false` when `dontWait` is set and the
    /// message could not be queued (`EAGAIN`); other failures throw, `EHOSTUNREACH` included.
    @discardableResult
    public func send(_ frames: [Data], dontWait: Bool = false) throws -> Bool {
        let handle = try live("zmq_send")
        for (index, frame) in frames.enumerated() {
            var flags: Int32 = dontWait ? ZMQ_DONTWAIT : 0
            if index < frames.count - 1 { flags |= ZMQ_SNDMORE }
            while true {
                let rc = frame.withUnsafeBytes { zmq_send(handle, $0.baseAddress, frame.count, flags) }
                if rc >= 0 { break }
                let error = ZMQError.last("zmq_send")
                if error.errno == EINTR { continue }
                // Only the first frame can be refused without leaving a half-sent message.
                if error.isWouldBlock && index == 0 { return false }
                throw error
            }
        }
        return true
    }

    /// Receives one whole multipart message, frame by frame through `zmq_msg_recv`, so frames of
    /// any size arrive intact. Returns `nil` when `dontWait` is set and nothing is waiting.
    public func receive(dontWait: Bool = false) throws -> [Data]? {
        try receive(dontWait: dontWait, properties: [])?.frames
    }

    /// Like `receive(dontWait:)`, and also reads the named properties of the connection the message
    /// came in on (`zmq_msg_gets`): "User-Id" and the metadata a ZAP handler attached to the
    /// peer, "Peer-Address". A property the connection does not have is absent from the result.
    public func receive(dontWait: Bool = false, properties: [String]) throws -> (frames: [Data], properties: [String: String])? {
        let handle = try live("zmq_msg_recv")
        var frames: [Data] = []
        frames.reserveCapacity(8)
        var found: [String: String] = [:]
        var message = zmq_msg_t()
        while true {
            zmq_msg_init(&message)
            let rc = zmq_msg_recv(&message, handle, dontWait && frames.isEmpty ? ZMQ_DONTWAIT : 0)
            if rc < 0 {
                let error = ZMQError.last("zmq_msg_recv")
                zmq_msg_close(&message)
                if error.errno == EINTR { continue }
                if error.isWouldBlock && frames.isEmpty { return nil }
                throw error
            }
            let size = zmq_msg_size(&message)
            let frame = size == 0 ? Data() : Data(bytes: zmq_msg_data(&message), count: size)
            // Read the more-flag before closing: it belongs to the message being closed.
            let more = zmq_msg_more(&message) != 0
            // The last frame always came from the peer (a ROUTER's first one is made locally), so
            // it carries the connection's metadata.
            if !more {
                for name in properties {
                    if let value = zmq_msg_gets(&message, name) { found[name] = String(cString: value) }
                }
            }
            zmq_msg_close(&message)
            frames.append(frame)
            if !more { return (frames, found) }
        }
    }

    var rawHandle: UnsafeMutableRawPointer? { handle }
}
