import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A loopback TCP port nothing listens on right now, for a test server that needs a fixed port on
/// its command line.
///
/// Picked below the kernel's ephemeral range (`net.ipv4.ip_local_port_range`), not by binding
/// port 0: the kernel takes ports of that range for every outgoing connection, so one picked there
/// and released can go to another test's connection before the server binds it (a notifier's
/// `--metrics` port was lost that way in the seconds between). Below the range only an explicit
/// bind takes a port, and this process hands each one out once.
public func freeLoopbackPort() throws -> Int {
    let ephemeralStart = ephemeralPortRangeStart()
    // Half the ports below the range (16384 to 32767 with Linux's default), and never below 1024.
    let candidates = max(1024, ephemeralStart / 2)..<ephemeralStart
    if candidates.count >= 1024 {
        for _ in 0..<500 {
            let port = Int.random(in: candidates)
            guard handedOutPorts.withLock({ $0.insert(port).inserted }) else { continue }
            if isFreeLoopbackPort(port) { return port }
        }
    }
    return try LoopbackListener(listening: false).port
}

/// Whether a loopback TCP socket can bind `port` now (it is released again at once).
public func isFreeLoopbackPort(_ port: Int) -> Bool {
    (try? LoopbackListener(port: port, listening: false)) != nil
}

/// The ports `freeLoopbackPort` has handed out in this process.
private let handedOutPorts = Mutex<Set<Int>>([])

/// The first port of the kernel's ephemeral range; Linux's default when it cannot be read.
private func ephemeralPortRangeStart() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8),
        let first = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).first.flatMap({ Int($0) })
    else { return 32768 }
    return first
}

/// A TCP socket bound to a loopback port (`port`, or one of the kernel's choosing), held until
/// this is released: a port no server can bind meanwhile. Listening, it accepts connections and never says a word,
/// as a host that is up but not serving does; not listening, it refuses them, as a host with
/// nothing on that port does (and, unlike `freeLoopbackPort`, no other test can take the port).
public final class LoopbackListener: Sendable {
    public let port: Int
    private let fd: Int32

    public init(port: Int = 0, listening: Bool = true) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound, !listening || listen(fd, 16) == 0 else {
            close(fd)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        self.fd = fd
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// `tcp://127.0.0.1:<port>`.
    public var endpoint: String { "tcp://127.0.0.1:\(port)" }

    deinit { close(fd) }
}
