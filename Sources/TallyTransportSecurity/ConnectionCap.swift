import Logging
import Synchronization
import ZeroMQ

/// Bounds the connections of each CURVE socket of a process: a handshake on a socket that already
/// holds `maximum` connections is refused before the allowlist is asked, so no peer, however
/// many connections it opens, takes the process's file descriptors from everyone else.
///
/// The counts come from each socket's `ConnectionMonitor` (libzmq reports a connection when it
/// is accepted, before its handshake reaches the ZAP handler), read through a `ConnectionGauge`
/// per ZAP domain. A refused handshake's connection is closed by libzmq and leaves the count.
public struct ConnectionCap: ZAPAuthorizer {
    public let maximum: Int
    private let gauges: [String: ConnectionGauge]
    private let next: any ZAPAuthorizer
    private let logger: Logger
    private let refusals = RefusalLog()

    /// - Parameters:
    ///   - gauges: each capped socket's count, by the ZAP domain the socket serves.
    ///   - next: who decides once a socket is under its cap (the allowlist).
    public init(maximum: Int, gauges: [String: ConnectionGauge], next: any ZAPAuthorizer, logger: Logger) {
        self.maximum = maximum
        self.gauges = gauges
        self.next = next
        self.logger = logger
    }

    public func authorize(_ request: ZAPRequest) -> ZAPDecision {
        // The count already holds the connection being asked about.
        guard let gauge = gauges[request.domain], gauge.count > maximum else { return next.authorize(request) }
        let reason = "the \(request.domain) socket already has \(maximum) connections (--max-connections)"
        // A flood would write one line per handshake: one a second says as much.
        if let suppressed = refusals.shouldLog(at: ContinuousClock.now) {
            logger.warning(
                "refused a connection: too many connections",
                metadata: [
                    "role": "\(request.domain)", "address": "\(request.address)", "key": "\(request.publicKey)",
                    "max_connections": "\(maximum)", "refused_since_last_line": "\(suppressed)",
                ])
        }
        return .refuse(reason: reason)
    }
}

/// At most one log line a second for refusals at the cap, with how many went unlogged between.
private final class RefusalLog: Sendable {
    private struct State {
        var lastLine: ContinuousClock.Instant?
        var unlogged = 0
    }
    private let state = Mutex(State())

    /// The refusals left unlogged since the last line when this one should be logged; nil when not.
    func shouldLog(at now: ContinuousClock.Instant) -> Int? {
        state.withLock { state in
            if let last = state.lastLine, now - last < .seconds(1) {
                state.unlogged += 1
                return nil
            }
            let unlogged = state.unlogged
            state.lastLine = now
            state.unlogged = 0
            return unlogged
        }
    }
}
