import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Tells whoever started this process how it is doing, with systemd's notification protocol
/// (`sd_notify`): one datagram per state change on the Unix socket named by `NOTIFY_SOCKET`.
///
/// Why this protocol: a supervisor learns that a process is ready the moment it is, instead of
/// probing it on a clock that a loaded machine can outrun. systemd uses it (`Type=notify` units),
/// and so does `TallyTesting`, which waits on `READY=1` rather than polling. Without
/// `NOTIFY_SOCKET` every call does nothing.
///
/// States sent: `READY=1` once, when the process first serves (a gateway has bound its sockets; a
/// worker has heard from the gateway on every thread); `STATUS=...` whenever what an operator
/// should read in `systemctl status` changes; `STOPPING=1` when shutdown begins. Readiness can
/// also be lost after `READY=1` (a worker whose gateway went away): systemd has no word for that
/// beyond the status line, but `/ready` (`isServing`) says so.
public final class ReadinessNotifier: Sendable {
    /// The process's notifier, configured from `NOTIFY_SOCKET`.
    public static let shared = ReadinessNotifier(socketPath: ProcessInfo.processInfo.environment["NOTIFY_SOCKET"])

    private let address: sockaddr_un?
    private let state = Mutex<State>(State())

    private struct State {
        /// `READY=1` has been sent.
        var announced = false
        /// Ready now: the last word was `ready`, not `notReady`.
        var ready = false
        var stopping = false
        var status: String?
    }

    /// Whether the process is ready now and not stopping: what its `/ready` endpoint answers, so
    /// a load balancer or orchestrator sees what the status line says.
    public var isServing: Bool { state.withLock { $0.ready && !$0.stopping } }

    /// - Parameter socketPath: a filesystem path, or an abstract socket written `@name`; nil sends nothing.
    public init(socketPath: String?) {
        address = socketPath.flatMap(Self.address(for:))
    }

    /// Says the process serves: `READY=1` (with a status line) the first time only, since
    /// readiness is announced once per process as systemd expects; the status line after that.
    public func ready(status: String) {
        let first = state.withLock { state -> Bool in
            defer { state.announced = true; state.ready = true; state.status = status }
            return !state.announced
        }
        send(first ? "READY=1\nSTATUS=\(status)" : "STATUS=\(status)")
    }

    /// Says the process does not serve, not yet or not any more, and why (the status line, sent
    /// when it changed).
    public func notReady(status: String) {
        let changed = state.withLock { state -> Bool in
            defer { state.ready = false; state.status = status }
            return state.status != status
        }
        if changed { send("STATUS=\(status)") }
    }

    /// Says the process has begun to shut down.
    public func stopping(status: String) {
        state.withLock {
            $0.status = status
            $0.stopping = true
        }
        send("STOPPING=1\nSTATUS=\(status)")
    }

    private func send(_ message: String) {
        guard var address else { return }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let bytes = Array(message.utf8)
        _ = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                sendto(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL), socketAddress, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }

    private static func address(for path: String) -> sockaddr_un? {
        var bytes = Array(path.utf8)
        guard !bytes.isEmpty else { return nil }
        // An abstract socket (Linux) is written with a leading '@' and starts with a NUL byte.
        if bytes[0] == UInt8(ascii: "@") { bytes[0] = 0 }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in bytes.enumerated() { buffer[index] = byte }
        }
        return address
    }
}
