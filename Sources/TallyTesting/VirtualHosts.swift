import Foundation

#if canImport(Glibc)
import Glibc
import TallyLifecycle
#endif

/// Hosts for a test of Tally across machines, on one machine: each host a Linux network
/// namespace with its own address, all joined by veth pairs to one bridge, whose address is this
/// test process's (so the test process is a host too). Processes run on a host through
/// `ip netns exec`, and reach each other over TCP only: their loopback, ports and addresses are
/// their own. Files (the stack's directory, unix sockets for readiness) stay shared.
///
/// Made and removed by the test itself; needs root and `ip` (iproute2). Where the machine does
/// not allow it, `whyUnavailable` says why, for the suite's `.enabled(if:)`.
public final class VirtualHosts: @unchecked Sendable {
    /// One host: its namespace, its address on the bridge, and its link to the bridge (the outer
    /// end of its veth pair).
    public struct Host: Sendable {
        public let namespace: String
        public let address: String
        let link: String
        /// What runs a program on this host: the program's argv follows.
        public var prefix: [String] { [VirtualHosts.ip ?? "ip", "netns", "exec", namespace] }
    }

    public let hosts: [Host]
    /// The test process's own address on the bridge.
    public let bridgeAddress: String
    /// The hosts' network, for a server's allowlist (`pg_hba.conf`).
    public let network: String
    private let bridge: String
    private let lock = NSLock()
    private var removed = false

    static let ip: String? = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Why hosts cannot be made here, or nil when they can (checked once, by making and removing a namespace).
    public static let whyUnavailable: String? = {
        guard geteuid() == 0 else { return "network namespaces need root" }
        guard let ip else { return "no ip command (iproute2)" }
        let probe = "tally-probe-\(getpid())"
        guard (try? ChildSpawn.run([ip, "netns", "add", probe], output: "/dev/null"))?.succeeded == true else {
            return "this machine does not allow network namespaces (ip netns add failed)"
        }
        _ = try? ChildSpawn.run([ip, "netns", "delete", probe], output: "/dev/null")
        return nil
    }()

    /// Makes `count` hosts on a fresh bridge and network (10.2xx.yyy.0/24, chosen at random so
    /// that parallel runs do not meet).
    public init(count: Int) throws {
        guard let ip = Self.ip, Self.whyUnavailable == nil else {
            throw Failure("virtual hosts are unavailable: \(Self.whyUnavailable ?? "no ip command")")
        }
        let tag = String(UInt32.random(in: 0...0xff_ffff), radix: 16)
        let subnet = "10.\(Int.random(in: 200...249)).\(Int.random(in: 0...255))"
        bridge = "tb\(tag)"
        bridgeAddress = "\(subnet).254"
        network = "\(subnet).0/24"
        hosts = (0..<count).map { Host(namespace: "tally-\(tag)-\($0)", address: "\(subnet).\($0 + 1)", link: "tv\(tag)\($0)") }
        do {
            try Self.run(ip, ["link", "add", bridge, "type", "bridge"])
            try Self.run(ip, ["addr", "add", "\(bridgeAddress)/24", "dev", bridge])
            try Self.run(ip, ["link", "set", bridge, "up"])
            for host in hosts {
                try Self.run(ip, ["netns", "add", host.namespace])
                try Self.run(ip, ["link", "add", host.link, "type", "veth", "peer", "name", "eth0", "netns", host.namespace])
                try Self.run(ip, ["link", "set", host.link, "master", bridge, "up"])
                try Self.run(ip, ["-n", host.namespace, "addr", "add", "\(host.address)/24", "dev", "eth0"])
                try Self.run(ip, ["-n", host.namespace, "link", "set", "eth0", "up"])
                try Self.run(ip, ["-n", host.namespace, "link", "set", "lo", "up"])
            }
        } catch {
            tearDown()
            throw error
        }
    }

    /// Cuts `host` off the network: its link to the bridge goes down, so nothing it sends
    /// arrives and nothing reaches it (a cable pulled, a switch port failed). No program on
    /// either side is told: TCP connections stay open, and what is sent on them waits in
    /// retransmission, to arrive after `reconnect` (seen here: a send during a 5 s cut arrived
    /// about a second after it).
    public func cut(_ host: Host) throws {
        try Self.run(Self.ip ?? "ip", ["link", "set", host.link, "down"])
    }

    /// Puts `host` back on the network after `cut`: the connections that outlived the cut carry
    /// on, and new ones can be made.
    public func reconnect(_ host: Host) throws {
        try Self.run(Self.ip ?? "ip", ["link", "set", host.link, "up"])
    }

    /// Removes the namespaces (their ends of the veth pairs go with them, and so the pairs) and
    /// the bridge. Processes still running on a host lose their network; stop them first.
    public func tearDown() {
        let already = lock.withLock { () -> Bool in
            defer { removed = true }
            return removed
        }
        guard !already, let ip = Self.ip else { return }
        for host in hosts { _ = try? ChildSpawn.run([ip, "netns", "delete", host.namespace], output: "/dev/null") }
        _ = try? ChildSpawn.run([ip, "link", "delete", bridge], output: "/dev/null")
    }

    deinit { tearDown() }

    private static func run(_ ip: String, _ arguments: [String]) throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("ip-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let ended = try ChildSpawn.run([ip] + arguments, output: output)
        guard ended.succeeded else {
            throw Failure("ip \(arguments.joined(separator: " ")) failed: \((try? String(contentsOfFile: output, encoding: .utf8)) ?? "")")
        }
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
