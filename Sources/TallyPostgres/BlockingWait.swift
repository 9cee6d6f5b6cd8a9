import Dispatch
import NIOCore

/// Waits on the calling thread for a postgres-nio future, up to a deadline.
///
/// Why block: `StorageEngine` is synchronous, and Tally calls it only from threads of its own (a
/// worker's MDP threads, a test's threads), never from the Swift concurrency pool or a SwiftNIO
/// event loop. Parking such a thread on a semaphore while the event loop does the I/O costs
/// nothing else any progress, and keeps every service's storage code free of `async`. The one
/// thread that must never wait here is an event loop's own (it would wait for itself); that is
/// checked.
///
/// Why a deadline: a server that stops answering (a partition, a host gone) would otherwise hold
/// the caller forever. Past the deadline the caller gets `nil` and closes the connection, and the
/// pool replaces it.
enum BlockingWait {
    static func result<Value: Sendable>(
        of future: EventLoopFuture<Value>, within timeout: Duration
    ) -> Result<Value, any Error>? {
        precondition(!future.eventLoop.inEventLoop, "a PostgreSQL engine was called on a SwiftNIO event loop")
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox<Value>()
        future.whenComplete { result in
            box.set(result)
            done.signal()
        }
        let nanoseconds = timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000
        guard done.wait(timeout: .now() + .nanoseconds(Int(clamping: nanoseconds))) == .success else { return nil }
        return box.get()
    }
}

/// Hands a future's result from the event loop to the waiting thread (the semaphore orders the two).
private final class ResultBox<Value: Sendable>: @unchecked Sendable {
    private var result: Result<Value, any Error>?
    func set(_ result: Result<Value, any Error>) { self.result = result }
    func get() -> Result<Value, any Error>? { result }
}
