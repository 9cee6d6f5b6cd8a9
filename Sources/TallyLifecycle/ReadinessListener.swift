import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What a child process has said about itself through its notification socket.
public struct ReadinessState: Sendable, Equatable {
    /// It sent `READY=1`: it serves.
    public var isReady = false
    /// It sent `STOPPING=1`.
    public var isStopping = false
    /// Its latest `STATUS=` line.
    public var status: String?

    public init() {}
}

/// The supervisor's side of `ReadinessNotifier`: a Unix datagram socket a child process is told
/// about through `NOTIFY_SOCKET`, read on a thread of its own, so the supervisor learns the
/// moment the child is ready instead of probing it. `tally up` gives each child one, and so
/// does `TallyTesting`.
public final class ReadinessListener: Sendable {
    /// The path to put in the child's `NOTIFY_SOCKET`.
    public let socketPath: String
    private let socketFD: Int32
    private let stopPipe: (read: Int32, write: Int32)
    private let state = Mutex(ReadinessState())
    private let finished = Mutex(false)
    private let threadDone = DispatchSemaphore(value: 0)
    private let onChange: @Sendable (ReadinessState) -> Void

    /// Binds `socketPath` (replacing a stale socket file) and starts reading.
    /// - Parameter onChange: called on the listener's thread after each message that changed the state.
    public init(socketPath: String, onChange: @escaping @Sendable (ReadinessState) -> Void = { _ in }) throws {
        self.socketPath = socketPath
        self.onChange = onChange
        unlink(socketPath)
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw ReadinessListenerError(path: socketPath, operation: "socket", code: errno) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(socketPath.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            closeDescriptor(fd)
            throw ReadinessListenerError(path: socketPath, operation: "bind (path too long)", code: ENAMETOOLONG)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in bytes.enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else {
            let code = errno
            closeDescriptor(fd)
            throw ReadinessListenerError(path: socketPath, operation: "bind", code: code)
        }
        var pipeFDs: [Int32] = [0, 0]
        guard pipe(&pipeFDs) == 0 else {
            closeDescriptor(fd)
            throw ReadinessListenerError(path: socketPath, operation: "pipe", code: errno)
        }
        for end in pipeFDs { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        socketFD = fd
        stopPipe = (pipeFDs[0], pipeFDs[1])
        let thread = Thread { [self] in readLoop() }
        thread.name = "readiness-listener"
        thread.stackSize = 256 << 10
        thread.start()
    }

    /// What the child has said so far.
    public var current: ReadinessState { state.withLock { $0 } }

    /// Reads what is still queued (so the state is final when this returns), stops the thread and
    /// removes the socket. Blocks for as long as that takes, which is a moment: call it from a
    /// plain thread (a process's termination handler), not from async code. Safe to call again.
    public func close() {
        let already = finished.withLock { finished -> Bool in
            defer { finished = true }
            return finished
        }
        guard !already else { return }
        var byte: UInt8 = 1
        _ = write(stopPipe.write, &byte, 1)
        threadDone.wait()
    }

    private func readLoop() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var fds = [pollfd(fd: socketFD, events: Int16(POLLIN), revents: 0), pollfd(fd: stopPipe.read, events: Int16(POLLIN), revents: 0)]
        while true {
            fds[0].revents = 0
            fds[1].revents = 0
            let ready = poll(&fds, 2, -1)
            if ready < 0 && errno == EINTR { continue }
            // Read everything queued first, so a READY sent just before the child exited is not lost.
            while true {
                let count = recv(socketFD, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                guard count > 0 else { break }
                apply(String(decoding: buffer[..<count], as: UTF8.self))
            }
            if ready < 0 || fds[1].revents != 0 { break }
        }
        closeDescriptor(socketFD)
        closeDescriptor(stopPipe.read)
        closeDescriptor(stopPipe.write)
        unlink(socketPath)
        threadDone.signal()
    }

    private func apply(_ message: String) {
        let changed = state.withLock { state -> ReadinessState? in
            let before = state
            for line in message.split(separator: "\n") {
                guard let equals = line.firstIndex(of: "=") else { continue }
                let key = line[..<equals]
                let value = String(line[line.index(after: equals)...])
                switch key {
                case "READY": if value == "1" { state.isReady = true }
                case "STOPPING": if value == "1" { state.isStopping = true }
                case "STATUS": state.status = value
                default: break
                }
            }
            return state == before ? nil : state
        }
        if let changed { onChange(changed) }
    }
}

public struct ReadinessListenerError: Error, CustomStringConvertible {
    public let path: String
    public let operation: String
    public let code: Int32
    public var description: String { "readiness socket \(path): \(operation) failed: \(String(cString: strerror(code)))" }
}

/// The C library's `close`, named apart from `ReadinessListener.close()`.
private func closeDescriptor(_ fd: Int32) {
    _ = close(fd)
}
