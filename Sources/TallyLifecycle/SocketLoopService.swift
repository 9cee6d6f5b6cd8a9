import ServiceLifecycle
import ZeroMQ

extension DedicatedThread {
    /// Runs a socket loop as a long-running service: on a thread of its own, until it returns, the
    /// calling task is cancelled, or the service group shuts down gracefully. Either way the loop
    /// sees the `WakeupSignal` it is given fire, and leaves.
    ///
    /// Here, not in `ZeroMQ`, so the wire layer knows nothing of process lifecycle.
    public static func runUntilShutdown<T: Sendable>(
        name: String, _ loop: @escaping @Sendable (WakeupSignal) throws -> T
    ) async throws -> T {
        let stop = WakeupSignal()
        return try await withGracefulShutdownHandler {
            try await run(name: name, stoppingWith: stop) { try loop(stop) }
        } onGracefulShutdown: {
            stop.fire()
        }
    }
}

/// A blocking socket loop (the ZAP handler's, say) as a service of the group: on a thread of its
/// own until the group shuts down.
public struct SocketLoopService: Service {
    let name: String
    let loop: @Sendable (WakeupSignal) throws -> Void

    public init(name: String, _ loop: @escaping @Sendable (WakeupSignal) throws -> Void) {
        self.name = name
        self.loop = loop
    }

    public func run() async throws {
        try await DedicatedThread.runUntilShutdown(name: name, loop)
    }
}
