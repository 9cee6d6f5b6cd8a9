import CZeroMQ
import Dispatch
import Foundation
import Synchronization

/// A libzmq context. Thread-safe (libzmq's contexts are), so it is shared freely.
///
/// Every `ZMQSocket` keeps its context alive, so the context can only be terminated once its
/// last socket has been closed: "sockets closed once, before the context" holds by construction.
public final class ZMQContext: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer
    private let terminated = Atomic(false)

    public init(ioThreads: Int32 = 1) throws {
        guard let handle = zmq_ctx_new() else { throw ZMQError.last("zmq_ctx_new") }
        zmq_ctx_set(handle, ZMQ_IO_THREADS, ioThreads)
        self.handle = handle
    }

    /// Makes every blocking call on this context's sockets return `ETERM`. Safe from any thread.
    public func shutdown() {
        zmq_ctx_shutdown(handle)
    }

    /// Ends the context now, once its sockets are closed: waits (on a thread of its own, up to
    /// `limit`) while libzmq sends what closed sockets still hold, within their LINGER.
    ///
    /// Why a process calls this before it returns from main: otherwise the context ends when its
    /// last reference goes, which may be on another thread while the main task is already calling
    /// `exit`, and the last replies a draining gateway or worker sent were then lost with the
    /// process. A socket still open makes the wait run to `limit` (never a hang); then the
    /// process exits as before.
    public func terminate(within limit: Duration) {
        guard !terminated.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread { [self] in
            while zmq_ctx_term(handle) != 0 && zmq_errno() == EINTR {}
            done.signal()
        }
        _ = done.wait(timeout: .now() + .milliseconds(limit.roundedUpMilliseconds))
    }

    deinit {
        // All sockets hold a reference to us, so none is open here and this cannot block.
        guard !terminated.load(ordering: .acquiring) else { return }
        while zmq_ctx_term(handle) != 0 && zmq_errno() == EINTR {}
    }
}
