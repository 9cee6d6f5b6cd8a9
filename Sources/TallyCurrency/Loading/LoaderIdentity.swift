import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Who holds a load claim: the process and host, so that another process on the same host can
/// tell at once that the loader has died, instead of waiting for its claim to go stale.
struct LoaderIdentity: Sendable, Equatable {
    var pid: Int32
    var host: String

    static let current = LoaderIdentity(pid: getpid(), host: hostName())

    private static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "unknown" }
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether this process certainly no longer exists: it is on this host and the kernel knows
    /// no such process, or only its zombie. A process on another host is never known to be dead.
    var isCertainlyDead: Bool {
        guard host == Self.current.host, pid > 0 else { return false }
        if kill(pid, 0) != 0 && errno == ESRCH { return true }
        #if os(Linux)
        // A killed child its parent has not reaped yet still answers kill(0); /proc says Z.
        if let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        {
            let state = stat[stat.index(after: close)...].drop(while: { $0 == " " }).first
            return state == "Z" || state == "X"
        }
        #endif
        return false
    }
}
