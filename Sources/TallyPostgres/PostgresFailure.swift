import PostgresNIO
import TallyProtocol
import TallyStorage

/// What a PostgreSQL error means for Tally, and what the caller is told (see `StorageEngine`):
/// a conflict between writers is retried, a server that cannot be reached or is overloaded is
/// `unavailable`, a full disk or exhausted memory `resource_exhausted`, anything else a
/// `StorageFailure` (the worker logs it and answers `internal`).
enum PostgresFailure {
    case conflict
    case connectionLost
    case unavailable(String)
    case timedOut(String)
    case exhausted(String)
    /// in_failed_sql_transaction (25P02): the transaction was already aborted by a failure before
    /// this statement. See `PostgresSession.classify` for what it means.
    case abortedBefore(String)
    case failure(String)

    /// A statement was not sent: its connection had closed (see `PostgresSession.send`).
    struct ClosedConnection: Error {}

    init(_ error: any Error) {
        if error is ClosedConnection {
            self = .connectionLost
            return
        }
        guard let error = error as? PSQLError else {
            self = .failure(String(describing: error))
            return
        }
        switch error.code {
        case .server:
            let state = error.serverInfo?[.sqlState] ?? ""
            let message = error.serverInfo?[.message] ?? "no message"
            switch state {
            // serialization_failure, deadlock_detected: the transaction may simply run again.
            case "40001", "40P01": self = .conflict
            // admin_shutdown, crash_shutdown, cannot_connect_now, too_many_connections, and class 08
            // (connection exception): the server is going, coming or full.
            case "57P01", "57P02", "57P03", "53300": self = .unavailable(message)
            case _ where state.hasPrefix("08"): self = .unavailable(message)
            case "25P02": self = .abortedBefore("SQLSTATE 25P02: \(message)")
            // query_canceled (statement_timeout), lock_not_available (lock_timeout).
            case "57014", "55P03": self = .timedOut(message)
            // disk_full, out_of_memory, and class 53 (insufficient resources) otherwise.
            case _ where state.hasPrefix("53"): self = .exhausted(message)
            default: self = .failure("SQLSTATE \(state): \(message)")
            }
        // TLS that cannot be had, or a server that cannot prove who it is: say so, since the fix
        // (sslmode, sslrootcert, the server's certificate) is the operator's, not a retry's.
        case .sslUnsupported:
            self = .unavailable("the server does not offer TLS, and sslmode requires it")
        case .failedToAddSSLHandler, .receivedUnencryptedDataAfterSSLRequest:
            self = .unavailable("TLS to the server failed: \(error.underlying.map { String(describing: $0) } ?? "\(error.code)")")
        case .connectionError where error.underlying is NIOSSLError || error.underlying is BoringSSLError:
            self = .unavailable("TLS to the server failed (is its certificate trusted? see sslmode and sslrootcert): \(error.underlying!)")
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed:
            self = .connectionLost
        // The server sent what the client did not expect at that point, and postgres-nio closed the
        // connection. Seen when a server shutting down (57P01) ends a connection while a
        // transaction's pipelined statements are on their way: the connection is gone, as in a
        // restart, and the request is answered `unavailable`, never `internal`.
        case .unexpectedBackendMessage:
            self = .unavailable("the server sent what the client did not expect, and the connection was closed")
        default:
            self = .failure(String(reflecting: error))
        }
    }

    /// The error the caller sees.
    func error(location: String, database: String) -> any Error {
        switch self {
        case .conflict:
            TallyError(.unavailable, "the \(database) database kept conflicting with concurrent writers; retry shortly")
        case .connectionLost:
            TallyError(.unavailable, "the \(database) database, \(location), cannot be reached; retry shortly")
        case .unavailable(let why):
            TallyError(.unavailable, "the \(database) database is unavailable (\(why)); retry shortly")
        case .timedOut(let why):
            TallyError(.unavailable, "the \(database) database took too long (\(why)); retry shortly")
        case .exhausted(let why):
            TallyError(.resourceExhausted, "the \(database) database is out of resources (\(why))")
        case .abortedBefore(let detail), .failure(let detail):
            StorageFailure(location: location, detail: detail)
        }
    }

    /// Whether the connection it happened on can no longer be trusted.
    var breaksConnection: Bool {
        switch self {
        case .connectionLost, .unavailable: true
        default: false
        }
    }
}
