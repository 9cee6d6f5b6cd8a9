import Foundation
import ZeroMQ

#if canImport(Glibc)
import Glibc
import TallyLifecycle
#endif

/// A throwaway PostgreSQL server for tests: a cluster made with `initdb` in a temporary
/// directory, listening on a unix socket in that directory and on a free loopback port, started
/// with `pg_ctl -w` (which returns once the server accepts connections: nothing sleeps), and
/// stopped and removed when the value goes away (or, for `shared`, when the test process exits).
///
/// Each test asks for its own fresh database (`makeDatabase`), as it gets its own stack.
///
/// PostgreSQL refuses to run as root, and tests may run as root (CI does): then `initdb` and the
/// server run as `nobody`, through `runuser`, in a directory handed to that user. The cluster's
/// superuser is `tally`, with `trust` authentication: it is reachable only from this machine.
///
/// The binaries are found on PATH, else in `/usr/lib/postgresql/<version>/bin` (Debian's place,
/// newest version first); `ops/install-deps.sh` installs them.
public final class PostgresCluster: Sendable {
    public static let superuser = "tally"

    /// The directory holding `initdb` and `pg_ctl`, or nil when PostgreSQL is not installed.
    public static let binaries: String? = findBinaries()

    /// Why PostgreSQL tests cannot run here, or nil when they can: for `.enabled(if:)` traits' comments.
    public static let whyUnavailable: String? = binaries == nil
        ? "PostgreSQL is not installed (no initdb on PATH or in /usr/lib/postgresql/*/bin): run ops/install-deps.sh"
        : nil

    public static var isInstalled: Bool { binaries != nil }

    /// One cluster for the whole test process, started on first use. Stopped at exit.
    public static func shared() throws -> PostgresCluster {
        try sharedCluster.get()
    }

    private static let sharedCluster: Result<PostgresCluster, ClusterError> = {
        let result = Result { () throws(ClusterError) in
            do { return try PostgresCluster() } catch let error as ClusterError { throw error } catch { throw ClusterError("\(error)") }
        }
        if case .success = result {
            atexit {
                if case .success(let cluster) = PostgresCluster.sharedCluster { cluster.tearDown() }
            }
        }
        return result
    }()

    public let directory: String
    /// Whether commits are flushed to the disk (see `init`).
    public let syncsToDisk: Bool
    public let port: Int
    private let bin: String
    /// The user the server runs as when the tests run as root.
    private let runAs: String?

    /// The directory of the server's socket: `?host=` in a URL.
    public var socketDirectory: String { directory }
    private var dataDirectory: String { directory + "/data" }
    public var logFile: String { directory + "/server.log" }

    /// The server's TLS certificate (self-signed, for `localhost` and 127.0.0.1), when the cluster
    /// was made with TLS: what a client's `sslrootcert` names to verify it.
    public var certificateFile: String? { tls ? directory + "/server.crt" : nil }
    private let tls: Bool
    /// Addresses the server listens on besides 127.0.0.1.
    private let extraAddresses: [String]
    /// The host the server runs on (its network namespace), or nil for this machine's network.
    private let host: VirtualHosts.Host?

    /// Makes and starts a new cluster; with `tls`, it also offers TLS on its TCP port, with a
    /// certificate made for it (`certificateFile`). `listeningAlsoOn` adds addresses to listen on
    /// (a `VirtualHosts` bridge or host), and `trusting` a network whose clients may connect as
    /// any user; `host` runs the server on one of `VirtualHosts` (its unix socket, in `directory`,
    /// stays reachable from here).
    /// `syncsToDisk`: the server flushes its log at commit as a production server does (for
    /// `tally-bench`); the tests' throwaway clusters turn that off.
    public init(
        tls: Bool = false, listeningAlsoOn extraAddresses: [String] = [], trusting network: String? = nil,
        on host: VirtualHosts.Host? = nil, syncsToDisk: Bool = false
    ) throws {
        self.tls = tls
        self.syncsToDisk = syncsToDisk
        self.extraAddresses = extraAddresses
        self.host = host
        guard let bin = Self.binaries else { throw ClusterError(Self.whyUnavailable ?? "PostgreSQL is not installed") }
        self.bin = bin
        // /tmp, not $TMPDIR: the socket's path must stay under 108 bytes, and `nobody` must be
        // able to reach the directory.
        directory = "/tmp/tally-pg-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        port = try freeLoopbackPort()
        if geteuid() == 0 {
            guard let nobody = getpwnam("nobody") else { throw ClusterError("running as root, and there is no user 'nobody' to run PostgreSQL as") }
            runAs = "nobody"
            guard chown(directory, nobody.pointee.pw_uid, nobody.pointee.pw_gid) == 0 else {
                throw ClusterError("cannot hand \(directory) to nobody: \(String(cString: strerror(errno)))")
            }
        } else {
            runAs = nil
        }
        try run("initdb", ["-D", dataDirectory, "-A", "trust", "-U", Self.superuser, "-E", "UTF8", "--locale=C", "--no-sync"])
        if tls { try makeCertificate() }
        if let network {
            // Appended as root; the server (nobody) only reads it.
            let rule = Data("host all all \(network) trust\n".utf8)
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: dataDirectory + "/pg_hba.conf"))
            try handle.seekToEnd()
            try handle.write(contentsOf: rule)
            try handle.close()
        }
        try start()
    }

    /// `init`, from async code: on a thread of its own, since it waits for `initdb` and `pg_ctl`.
    /// A test that blocks one of the concurrency pool's few threads (two on CI) for seconds stalls
    /// every test running beside it, and one that times its clients reads the stall as late answers.
    public static func started(
        tls: Bool = false, listeningAlsoOn extraAddresses: [String] = [], trusting network: String? = nil,
        on host: VirtualHosts.Host? = nil, syncsToDisk: Bool = false
    ) async throws -> PostgresCluster {
        try await DedicatedThread.run(name: "initdb") {
            try PostgresCluster(tls: tls, listeningAlsoOn: extraAddresses, trusting: network, on: host, syncsToDisk: syncsToDisk)
        }
    }

    /// `start()`, from async code, off the concurrency pool (see `started`).
    public func start() async throws {
        try await DedicatedThread.run(name: "pg_ctl") { try self.start() }
    }

    /// `stop()`, from async code, off the concurrency pool (see `started`).
    public func stop() async throws {
        try await DedicatedThread.run(name: "pg_ctl") { try self.stop() }
    }

    /// Starts the server and returns once it accepts connections.
    public func start() throws {
        var settings = [
            "-k", directory, "-p", "\(port)", "-c", "listen_addresses=\((["127.0.0.1"] + extraAddresses).joined(separator: ","))",
            // Integration tests run many worker processes at once, each with a pool.
            "-c", "max_connections=600",
        ]
        // Throwaway data: no need to survive a power cut.
        if !syncsToDisk { settings += ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"] }
        if tls { settings += ["-c", "ssl=on", "-c", "ssl_cert_file=\(directory)/server.crt", "-c", "ssl_key_file=\(directory)/server.key"] }
        let options = settings.joined(separator: " ")
        try run("pg_ctl", ["-D", dataDirectory, "-l", logFile, "-o", options, "-w", "-t", "60", "start"])
    }

    /// A self-signed certificate and its key for the server, readable by the server's user only.
    private func makeCertificate() throws {
        let ended = try ChildSpawn.run(
            ["/usr/bin/openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
             "-keyout", "\(directory)/server.key", "-out", "\(directory)/server.crt", "-days", "2", "-subj", "/CN=localhost",
             "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
            output: "\(directory)/openssl.out")
        guard ended.succeeded else {
            throw ClusterError("openssl could not make a certificate: \((try? String(contentsOfFile: "\(directory)/openssl.out", encoding: .utf8)) ?? "")")
        }
        chmod("\(directory)/server.key", 0o600)
        if let runAs, let user = getpwnam(runAs) {
            for file in ["server.key", "server.crt"] { chown("\(directory)/\(file)", user.pointee.pw_uid, user.pointee.pw_gid) }
        }
    }

    /// Stops the server (fast: open connections are ended) and returns once it has stopped.
    public func stop() throws {
        try run("pg_ctl", ["-D", dataDirectory, "-m", "fast", "-w", "-t", "60", "stop"])
    }

    /// A new, empty database, and its URL (over the unix socket). `name` defaults to a fresh one.
    @discardableResult
    public func makeDatabase(_ name: String = "t_" + UUID().uuidString.prefix(12).lowercased()) throws -> String {
        try run("createdb", ["-h", directory, "-p", "\(port)", "-U", Self.superuser, name], asServerUser: false)
        return url(database: name)
    }

    /// The URL of `database` over the unix socket.
    public func url(database: String) -> String {
        "postgres://\(Self.superuser)@/\(database)?host=\(directory)&port=\(port)"
    }

    /// The URL of `database` over TCP on the loopback address.
    public func tcpURL(database: String) -> String {
        "postgres://\(Self.superuser)@127.0.0.1:\(port)/\(database)"
    }

    deinit { tearDown() }

    private func tearDown() {
        try? run("pg_ctl", ["-D", dataDirectory, "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs one of PostgreSQL's programs and waits for it; throws with its output when it fails.
    ///
    /// Through `ChildSpawn` and waitpid on this thread, not Foundation's `Process`: its
    /// `waitUntilExit` learns of the exit on a dispatch queue, which never ran while the test
    /// process's few pool threads were all busy (the cluster starts lazily, under a test), and the
    /// wait hung.
    private func run(_ program: String, _ arguments: [String], asServerUser: Bool = true) throws {
        var argv = ["\(bin)/\(program)"] + arguments
        if asServerUser, let runAs { argv = ["/usr/sbin/runuser", "-u", runAs, "--"] + argv }
        // pg_ctl start's server stays in the namespace it was started in.
        if program == "pg_ctl", let host { argv = host.prefix + argv }
        let output = directory + "/\(program).out"
        let ended: ChildSpawn.Termination
        do {
            ended = try ChildSpawn.run(argv, output: output)
        } catch {
            throw ClusterError("\(error)")
        }
        guard ended.succeeded else {
            let said = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            throw ClusterError("\(program) \(arguments.joined(separator: " ")) failed (\(ended.signaled ? "signal" : "status") \(ended.status)): \(said)")
        }
    }

    private static func findBinaries() -> String? {
        let fileManager = FileManager.default
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init) {
            let initdb = directory + "/initdb"
            if fileManager.isExecutableFile(atPath: initdb) {
                // Debian links initdb from elsewhere; its siblings (pg_ctl, createdb) are beside the target.
                let resolved = URL(fileURLWithPath: initdb).resolvingSymlinksInPath().deletingLastPathComponent().path
                if fileManager.isExecutableFile(atPath: resolved + "/pg_ctl") { return resolved }
            }
        }
        let versions = ((try? fileManager.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? [])
            .compactMap { Int($0) }.sorted(by: >)
        for version in versions {
            let bin = "/usr/lib/postgresql/\(version)/bin"
            if fileManager.isExecutableFile(atPath: bin + "/initdb") && fileManager.isExecutableFile(atPath: bin + "/pg_ctl") { return bin }
        }
        return nil
    }

    public struct ClusterError: Error, CustomStringConvertible, Sendable {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
