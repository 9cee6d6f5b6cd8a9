import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A loopback TCP port nothing listens on right now: the kernel's pick for a socket bound to port
/// 0, released at once. For a test server that needs a fixed port on its command line.
public func freeLoopbackPort() throws -> Int {
    try LoopbackListener(listening: false).port
}

/// A TCP socket bound to a loopback port of the kernel's choosing, held until this is released:
/// a port no server can bind meanwhile. Listening, it accepts connections and never says a word,
/// as a host that is up but not serving does; not listening, it refuses them, as a host with
/// nothing on that port does (and, unlike `freeLoopbackPort`, no other test can take the port).
public final class LoopbackListener: Sendable {
    public let port: Int
    private let fd: Int32

    public init(listening: Bool = true) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
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
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// `tcp://127.0.0.1:<port>`.
    public var endpoint: String { "tcp://127.0.0.1:\(port)" }

    deinit { close(fd) }
}
