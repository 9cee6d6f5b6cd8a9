import Foundation

/// Runs blocking ZeroMQ work on a thread of its own and lets async code await its end.
///
/// Socket loops block in `zmq_poll`; running them here keeps them off the Swift concurrency
/// pool, and gives each socket the single thread libzmq expects.
public enum DedicatedThread {
    /// The stack of every dedicated thread: ample for a socket loop, and what bounds how deeply
    /// anything that reads the network on one (the gateway, the notifier's inlet, `tally watch`)
    /// may recurse (see `JSONValue.maximumDepth`).
    public static let stackSize = 1 << 20

    /// Starts `body` on a new thread and suspends (without blocking a pool thread) until it returns.
    public static func run<T: Sendable>(name: String, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                do { continuation.resume(returning: try body()) } catch { continuation.resume(throwing: error) }
            }
            thread.name = name
            thread.stackSize = stackSize
            thread.start()
        }
    }

    /// Like `run`, but fires `stop` when the calling task is cancelled so the loop can leave.
    public static func run<T: Sendable>(
        name: String,
        stoppingWith stop: WakeupSignal,
        _ body: @escaping @Sendable () throws -> T
    ) async throws -> T {
        try await withTaskCancellationHandler {
            try await run(name: name, body)
        } onCancel: {
            stop.fire()
        }
    }
}
