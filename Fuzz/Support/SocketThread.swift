import Foundation
import ZeroMQ

/// One long-lived thread with the stack of the threads that read the network
/// (`DedicatedThread.stackSize`: the gateway's, the notifier's inlet, `tally watch`'s), on which
/// targets run their readers, so that a reader recursing too deeply for such a thread crashes
/// here as it would there. (libFuzzer calls targets on the main thread, whose stack is 8 MiB.)
public final class SocketThread: @unchecked Sendable {
    public static let shared = SocketThread()

    // `work` is written before `ready` is signalled and read after, and the caller waits on
    // `done` before touching it again: the semaphores order every access.
    private var work: (() -> Void)?
    private let ready = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)

    private init() {
        let thread = Thread { [self] in
            while true {
                ready.wait()
                work?()
                done.signal()
            }
        }
        thread.name = "fuzz-socket-thread"
        thread.stackSize = DedicatedThread.stackSize
        thread.start()
    }

    /// Runs `body` on the thread and returns when it has.
    public func run(_ body: () -> Void) {
        withoutActuallyEscaping(body) { body in
            work = body
            ready.signal()
            done.wait()
            work = nil
        }
    }
}
