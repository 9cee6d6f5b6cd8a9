import CZeroMQ

/// A libzmq context. Thread-safe (libzmq's contexts are), so it is shared freely.
///
/// Every `ZMQSocket` keeps its context alive, so the context can only be terminated once its
/// last socket has been closed: "sockets closed once, before the context" holds by construction.
public final class ZMQContext: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer

    public init(ioThreads: Int32 = 1) throws {
        guard let handle = zmq_ctx_new() else { throw ZMQError.last("zmq_ctx_new") }
        zmq_ctx_set(handle, ZMQ_IO_THREADS, ioThreads)
        self.handle = handle
    }

    /// Makes every blocking call on this context's sockets return `ETERM`. Safe from any thread.
    public func shutdown() {
        zmq_ctx_shutdown(handle)
    }

    deinit {
        // All sockets hold a reference to us, so none is open here and this cannot block.
        while zmq_ctx_term(handle) != 0 && zmq_errno() == EINTR {}
    }
}
