import Synchronization

/// How many connections one bound socket has now, written by the thread that owns the socket's
/// `ConnectionMonitor` and read from any other (the ZAP handler's, which refuses handshakes
/// beyond a cap). libzmq itself cannot say.
public final class ConnectionGauge: Sendable {
    private let value = Atomic<Int>(0)

    public init() {}

    /// Connections open now, as the monitor last reported them.
    public var count: Int { value.load(ordering: .relaxed) }

    func set(_ count: Int) { value.store(count, ordering: .relaxed) }
}
