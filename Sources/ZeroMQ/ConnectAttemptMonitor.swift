import CZeroMQ
import Foundation

/// Tells whether a socket's connection to its one endpoint has been made, or failed before it
/// ever was: nothing listens at a tcp:// address (refused), no socket file is at an ipc:// path.
/// libzmq retries such a connection quietly, forever, and a request sent meanwhile just waits; its
/// socket monitor says so at once (`ZMQ_EVENT_CONNECT_RETRIED`, within milliseconds on a refusal),
/// so a client can say "no gateway" instead of waiting out its timeout. A connection made once and
/// lost later is not a failure to connect: what was sent may have arrived.
///
/// Lives on the socket's thread: poll `socket`, then call `update()`.
public final class ConnectAttemptMonitor {
    public enum State: Sendable, Equatable {
        /// Still trying, as a connection over a slow network may.
        case connecting
        /// Connected at least once.
        case connected
        /// The first attempt failed, and libzmq will only try again.
        case failed
    }

    /// The PAIR end that receives the monitor's events; add it to the thread's poller.
    public let socket: ZMQSocket
    public private(set) var state = State.connecting
    private let target: ZMQSocket

    /// Starts monitoring `target`; call it before `target` connects, so no event goes unseen.
    public init(watching target: ZMQSocket, context: ZMQContext) throws {
        let endpoint = "inproc://tally-connect-monitor-\(UUID().uuidString)"
        try target.startMonitor(endpoint, events: ZMQ_EVENT_CONNECTED | ZMQ_EVENT_CONNECT_RETRIED)
        self.target = target
        socket = try ZMQSocket(context: context, type: .pair)
        try socket.connect(endpoint)
    }

    /// Reads every event waiting, without blocking, and returns the state they leave.
    @discardableResult
    public func update() throws -> State {
        while let frames = try socket.receive(dontWait: true) {
            guard let event = MonitorEvent(frames: frames), state == .connecting else { continue }
            switch event.event {
            case ZMQ_EVENT_CONNECTED: state = .connected
            case ZMQ_EVENT_CONNECT_RETRIED: state = .failed
            default: break
            }
        }
        return state
    }

    /// Stops the monitor, then closes the PAIR end; call it before closing the watched socket.
    /// In that order: a connection still being retried reports each retry, and libzmq blocks the
    /// context's I/O thread, every socket of the context with it, on an event sent to a monitor
    /// whose reader has gone (seen: a client's later requests never connected at all).
    public func close() {
        target.stopMonitor()
        socket.close()
    }
}
