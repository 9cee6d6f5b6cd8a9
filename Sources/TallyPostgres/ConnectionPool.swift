import Dispatch
import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization
import TallyProtocol

/// A fixed number of connections to one database, lent to one caller at a time.
///
/// Why this shape: the engine's callers are blocking threads (see `BlockingWait`), so a counting
/// semaphore is the queue: at most `poolSize` callers hold a connection, the rest wait up to
/// `acquireTimeout` and are then told `unavailable` (never a hang). Connections open lazily, on
/// first need. A connection that failed (the server went away, a statement outran its deadline)
/// is closed and dropped, and the next caller opens a fresh one, so the engine recovers by itself
/// when the database comes back; opening one is bounded by `connectTimeout`.
final class ConnectionPool: Sendable {
    let configuration: PostgresConfiguration
    private let slots: DispatchSemaphore
    private let idle = Mutex<[PostgresConnection]>([])
    private let nextID = Atomic(0)
    private let logger: Logger
    /// The TLS settings connections use, made on first need (reading `sslrootcert` can fail).
    private let tls = Mutex<PostgresConnection.Configuration.TLS?>(nil)

    init(configuration: PostgresConfiguration) {
        self.configuration = configuration
        slots = DispatchSemaphore(value: configuration.poolSize)
        // postgres-nio logs below info only; none of it belongs in a worker's log.
        logger = Logger(label: "tally.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
    }

    /// Runs `body` with a connection of the pool. `body` gives the lease up (`Lease.discard`) when
    /// the connection can no longer be trusted (see `PostgresSession`); such a connection, or one
    /// the server closed, is not taken back.
    func withConnection<T>(_ body: (Lease) throws -> T) throws -> T {
        guard slots.wait(timeout: .now() + .milliseconds(Int(configuration.acquireTimeout.milliseconds))) == .success else {
            throw TallyError(
                .unavailable,
                "all \(configuration.poolSize) connections to the \(configuration.database) database stayed busy for \(configuration.acquireTimeout); retry shortly")
        }
        defer { slots.signal() }
        let lease = if let idle = takeIdle() { Lease(idle, reused: true) } else { Lease(try connect(), reused: false) }
        defer { giveBack(lease) }
        return try body(lease)
    }

    /// One caller's use of a connection.
    final class Lease {
        let connection: PostgresConnection
        /// Whether the connection has served before and waited idle: the server may have ended it
        /// since (a restart, an idle timeout) without the client having heard yet.
        let reused: Bool
        private(set) var isDiscarded = false

        init(_ connection: PostgresConnection, reused: Bool) {
            self.connection = connection
            self.reused = reused
        }

        /// Closes the connection: it will not be lent again.
        func discard() {
            guard !isDiscarded else { return }
            isDiscarded = true
            ConnectionPool.close(connection)
        }
    }

    private func takeIdle() -> PostgresConnection? {
        while let connection = idle.withLock({ $0.popLast() }) {
            if !connection.isClosed { return connection }
            Self.close(connection)
        }
        return nil
    }

    private func giveBack(_ lease: Lease) {
        if lease.isDiscarded { return }
        if lease.connection.isClosed {
            Self.close(lease.connection)
        } else {
            idle.withLock { $0.append(lease.connection) }
        }
    }

    private func connect() throws -> PostgresConnection {
        var options = PostgresConnection.Configuration.Options()
        options.connectTimeout = .milliseconds(configuration.connectTimeout.milliseconds)
        if let timeout = configuration.statementTimeout {
            options.additionalStartupParameters.append(("statement_timeout", "\(timeout.milliseconds)"))
        }
        if let schema = configuration.schema {
            options.additionalStartupParameters.append(("search_path", schema))
        }
        // Set either way, so the promise holds whatever the server's own default is.
        options.additionalStartupParameters.append(("synchronous_commit", configuration.durability == .disk ? "on" : "off"))
        var settings: PostgresConnection.Configuration
        if let socketPath = configuration.socketPath {
            settings = .init(
                unixSocketPath: socketPath, username: configuration.username, password: configuration.password,
                database: configuration.database)
        } else {
            settings = .init(
                host: configuration.host, port: configuration.port, username: configuration.username,
                password: configuration.password, database: configuration.database, tls: try tlsSettings())
        }
        settings.options = options
        let future = PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.next(), configuration: settings, id: nextID.add(1, ordering: .relaxed).newValue,
            logger: logger)
        // postgres-nio bounds the connect itself; the margin covers authentication after it.
        guard let result = BlockingWait.result(of: future, within: configuration.connectTimeout + .seconds(1)) else {
            future.whenSuccess { Self.close($0) }
            throw unreachable("no answer within \(configuration.connectTimeout)")
        }
        do {
            return try result.get()
        } catch let error as PSQLError where error.code == .connectionError {
            guard let reason = error.underlying.flatMap(Self.whyNotConnected) else { throw error }
            throw unreachable(reason)
        }
    }

    /// The server could not be reached at all: where it was sought, why not, and the URL that
    /// said where, so the operator can tell a wrong address from a server that is down.
    private func unreachable(_ reason: String) -> TallyError {
        TallyError(
            .unavailable,
            "cannot connect to PostgreSQL at \(configuration.serverAddress) (\(reason)) for the \(configuration.database) database of \(configuration.redacted); retry shortly")
    }

    /// Why a connection could not be opened, as a person would say it ("connection refused"), or
    /// nil when `error` is not about opening one (TLS, for one, says more by itself).
    static func whyNotConnected(_ error: any Error) -> String? {
        switch error {
        case let error as NIOConnectionError:
            let reasons = error.connectionErrors.compactMap { whyNotConnected($0.error) }
            if !reasons.isEmpty { return Array(Set(reasons)).sorted().joined(separator: "; ") }
            if error.dnsAError != nil || error.dnsAAAAError != nil { return "the host name \(error.host) did not resolve" }
            return "no address to connect to"
        case let error as IOError:
            let text = String(cString: strerror(error.errnoCode))
            return text.prefix(1).lowercased() + text.dropFirst()
        case ChannelError.connectTimeout(let timeout):
            return "no answer within \(Duration.nanoseconds(timeout.nanoseconds))"
        default:
            return nil
        }
    }

    /// The TLS mode and context for a TCP connection, made once.
    private func tlsSettings() throws -> PostgresConnection.Configuration.TLS {
        if let made = tls.withLock({ $0 }) { return made }
        var client = TLSConfiguration.makeClientConfiguration()
        switch configuration.tls {
        case .disable: return .disable
        case .prefer, .require: client.certificateVerification = .none
        case .verifyCA: client.certificateVerification = .noHostnameVerification
        case .verifyFull: client.certificateVerification = .fullVerification
        }
        if let file = configuration.rootCertificateFile {
            client.trustRoots = .file(file)
        }
        let context: NIOSSLContext
        do {
            context = try NIOSSLContext(configuration: client)
        } catch {
            throw TallyError(
                .failedPrecondition,
                "cannot set up TLS to \(configuration.redacted) (sslrootcert \(configuration.rootCertificateFile ?? "the system's trust store")): \(error)",
                field: "database")
        }
        let made: PostgresConnection.Configuration.TLS = configuration.tls == .prefer ? .prefer(context) : .require(context)
        tls.withLock { $0 = made }
        return made
    }

    /// Closes `connection` without waiting, keeping it alive until its channel has closed
    /// (postgres-nio checks, in debug builds, that no open connection is released).
    static func close(_ connection: PostgresConnection) {
        connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    deinit {
        for connection in idle.withLock({ $0 }) { Self.close(connection) }
    }
}

extension Duration {
    /// Whole milliseconds, rounded down.
    var milliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
