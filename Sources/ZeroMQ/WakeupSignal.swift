import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A self-pipe that lets any thread (or a task being cancelled) wake a thread blocked in
/// `zmq_poll`, without sharing a ZeroMQ socket across threads.
public final class WakeupSignal: @unchecked Sendable {
    public let fileDescriptor: Int32
    private let writeEnd: Int32
    private let lock = NSLock()
    private var fired = false

    public init() {
        var fds: [Int32] = [0, 0]
        precondition(pipe(&fds) == 0, "pipe() failed")
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        fileDescriptor = fds[0]
        writeEnd = fds[1]
    }

    deinit {
        close(fileDescriptor)
        close(writeEnd)
    }

    /// Wakes the poller and marks the signal as fired. Safe from any thread, any number of times.
    public func fire() {
        lock.lock()
        defer { lock.unlock() }
        guard !fired else { return }
        fired = true
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    public var isFired: Bool {
        lock.lock()
        defer { lock.unlock() }
        return fired
    }
}
