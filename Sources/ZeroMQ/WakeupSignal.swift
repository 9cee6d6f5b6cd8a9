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
        (fileDescriptor, writeEnd) = makeNonBlockingPipe()
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

/// A self-pipe that can be signalled any number of times and drained by the polling thread: how
/// threads hand a socket thread work (a queue beside it) without touching its socket.
public final class WakeupPipe: @unchecked Sendable {
    public let fileDescriptor: Int32
    private let writeEnd: Int32

    public init() {
        (fileDescriptor, writeEnd) = makeNonBlockingPipe()
    }

    deinit {
        close(fileDescriptor)
        close(writeEnd)
    }

    /// Makes the read end readable. A full pipe already is, so a failed write loses nothing.
    public func signal() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Empties the pipe, so the next poll waits for the next signal.
    public func drain() {
        var buffer = [UInt8](repeating: 0, count: 256)
        while read(fileDescriptor, &buffer, buffer.count) > 0 {}
    }
}

/// A pipe whose ends never block and are not inherited by child processes: (read end, write end).
private func makeNonBlockingPipe() -> (Int32, Int32) {
    var fds: [Int32] = [0, 0]
    precondition(pipe(&fds) == 0, "pipe() failed")
    for fd in fds {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }
    return (fds[0], fds[1])
}
