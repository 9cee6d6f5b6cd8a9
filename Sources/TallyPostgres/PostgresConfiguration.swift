import Foundation
import TallyStorage
import TallyProtocol

/// Where a PostgreSQL engine connects and how it behaves, read from a URL:
///
/// ```
/// postgres://tally@db.internal:5432/tally?pool_size=8&connect_timeout=5&statement_timeout=30
/// postgres://tally@/tally?host=/run/postgresql          (a unix socket directory)
/// ```
///
/// The password comes from the URL (`postgres://user:secret@...`) or, when the URL has none, from
/// `PGPASSWORD`, as libpq does. It is never printed: `redacted` (what `location` shows in logs and
/// errors) is the URL as given without it.
///
/// Query parameters (all optional): `pool_size` (connections, default 4), `connect_timeout`
/// (seconds to connect, default 5), `statement_timeout` (seconds a statement may run on the
/// server, default 30; 0 turns it off), `acquire_timeout` (seconds a caller waits for a free
/// connection, default 10), `schema` (see `schema`), `sslmode` and `sslrootcert` (see `TLSMode`).
public struct PostgresConfiguration: Sendable {
    /// TLS to the server, named as libpq names it. Unix sockets never use it.
    public enum TLSMode: String, Sendable, CaseIterable {
        /// Plain text.
        case disable
        /// TLS when the server offers it, unverified; plain text otherwise. The default for a
        /// loopback host, where the traffic never leaves the machine.
        case prefer
        /// TLS or no connection; the certificate is not checked (encrypted, not authenticated).
        case require
        /// TLS with a certificate signed by a trusted authority (`sslrootcert`, else the system's),
        /// for any host name.
        case verifyCA = "verify-ca"
        /// TLS with a trusted certificate issued for the host connected to. The default for any
        /// host other than loopback: over a network, the server proves who it is.
        case verifyFull = "verify-full"
    }

    public var host: String
    public var port: Int
    /// The directory holding the server's socket (`.s.PGSQL.<port>`), when connecting over a unix socket.
    public var socketDirectory: String?
    public var username: String
    public var password: String?
    public var database: String
    public var poolSize: Int
    public var connectTimeout: Duration
    /// Server-side limit on one statement (`statement_timeout`); nil for none.
    public var statementTimeout: Duration?
    /// How long a caller waits for one of the pool's connections before it is told `unavailable`.
    public var acquireTimeout: Duration
    /// The schema the engine's tables live in: every connection's `search_path`, created (under the
    /// migration lock) by `migrate`. Several services share one database this way, each in a
    /// schema named after it, as each has a file of its own on SQLite. Nil: the server's default
    /// (`public`). A plain lowercase identifier (`[a-z_][a-z0-9_]*`, at most 63 bytes).
    public var schema: String? {
        didSet { precondition(schema.map(Self.isSchemaName) ?? true, "not a schema name: \(schema!)") }
    }
    /// Whether a commit is answered only once the server has flushed its log (`Durability`):
    /// `.process` turns `synchronous_commit` off for Tally's connections. Not part of the URL: it
    /// is the same setting (`--durability`) for SQLite and PostgreSQL.
    public var durability: Durability = .disk
    /// TLS to a server over TCP (see `TLSMode`).
    public var tls: TLSMode
    /// A PEM file of the authorities whose certificates `verify-ca` and `verify-full` trust;
    /// nil for the system's trust store.
    public var rootCertificateFile: String?
    /// The URL this configuration was read from, without its password: what messages show, so an
    /// operator sees the URL they gave (its settings and spelling too), not one made up from it.
    private var givenURL: String?

    /// The defaults, for a server on `host`.
    public init(
        host: String = "localhost", port: Int = 5432, socketDirectory: String? = nil, username: String, password: String? = nil,
        database: String, poolSize: Int = 4, connectTimeout: Duration = .seconds(5), statementTimeout: Duration? = .seconds(30),
        acquireTimeout: Duration = .seconds(10), schema: String? = nil, tls: TLSMode? = nil, rootCertificateFile: String? = nil
    ) {
        precondition(schema.map(Self.isSchemaName) ?? true, "not a schema name: \(schema!)")
        self.host = host
        self.port = port
        self.socketDirectory = socketDirectory
        self.username = username
        self.password = password
        self.database = database
        self.poolSize = poolSize
        self.connectTimeout = connectTimeout
        self.statementTimeout = statementTimeout
        self.acquireTimeout = acquireTimeout
        self.schema = schema
        self.tls = tls ?? (Self.isLoopback(host) ? .prefer : .verifyFull)
        self.rootCertificateFile = rootCertificateFile
    }

    /// Whether `host` is this machine, where unencrypted traffic stays on it.
    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// Whether `name` can be a `schema`: a lowercase identifier PostgreSQL needs no quotes for.
    public static func isSchemaName(_ name: String) -> Bool {
        guard let first = name.utf8.first, name.utf8.count <= 63, first == UInt8(ascii: "_") || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first)
        else { return false }
        return name.utf8.allSatisfy {
            $0 == UInt8(ascii: "_") || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
        }
    }

    /// Reads `url` (`postgres://` or `postgresql://`). `environment` supplies `PGPASSWORD` when
    /// the URL carries no password.
    public init(url: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        func invalid(_ why: String) -> TallyError {
            // Never echo the URL itself: it may hold a password.
            TallyError(.invalidArgument, "the database URL is not a PostgreSQL URL: \(why)", field: "database")
        }
        guard let components = URLComponents(string: url), let scheme = components.scheme,
            scheme == "postgres" || scheme == "postgresql"
        else { throw invalid("expected postgres://user@host:port/database") }
        let items = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        // A misspelt setting (`pool_sise`) would otherwise be ignored without a word.
        if let unknown = items.keys.sorted().first(where: { !Self.settings.contains($0) }) {
            throw invalid("unknown setting '\(unknown)'; the URL takes \(Self.settings.sorted().joined(separator: ", "))")
        }
        func seconds(_ name: String, default value: Duration) throws -> Duration {
            guard let text = items[name] else { return value }
            guard let number = Double(text), number >= 0, number.isFinite else { throw invalid("\(name) must be a number of seconds") }
            return .milliseconds(Int64(number * 1000))
        }
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        guard !database.isEmpty else { throw invalid("no database name (postgres://user@host/DATABASE)") }
        guard let username = components.user.flatMap({ $0.removingPercentEncoding }), !username.isEmpty else {
            throw invalid("no user name (postgres://USER@host/database)")
        }
        var poolSize = 4
        if let text = items["pool_size"] {
            guard let size = Int(text), (1...1000).contains(size) else { throw invalid("pool_size must be a whole number from 1 to 1000") }
            poolSize = size
        }
        let statementTimeout = try seconds("statement_timeout", default: .seconds(30))
        var tls: TLSMode?
        if let text = items["sslmode"] {
            guard let mode = TLSMode(rawValue: text) else {
                throw invalid("sslmode must be one of \(TLSMode.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            tls = mode
        }
        if let schema = items["schema"], !Self.isSchemaName(schema) {
            throw invalid("schema must be a lowercase identifier (letters a-z, digits, _)")
        }
        self.init(
            host: components.host.flatMap { $0.isEmpty ? nil : $0 } ?? "localhost",
            port: components.port ?? items["port"].flatMap { Int($0) } ?? 5432,
            socketDirectory: items["host"].flatMap { $0.hasPrefix("/") ? $0 : nil },
            username: username,
            password: components.password?.removingPercentEncoding ?? environment["PGPASSWORD"],
            database: database,
            poolSize: poolSize,
            connectTimeout: try seconds("connect_timeout", default: .seconds(5)),
            statementTimeout: statementTimeout == .zero ? nil : statementTimeout,
            acquireTimeout: try seconds("acquire_timeout", default: .seconds(10)),
            schema: items["schema"], tls: tls, rootCertificateFile: items["sslrootcert"].flatMap { $0.isEmpty ? nil : $0 })
        var shown = components
        shown.password = nil
        givenURL = shown.string
    }

    /// The query parameters a URL may carry.
    static let settings: Set<String> = [
        "host", "port", "pool_size", "connect_timeout", "statement_timeout", "acquire_timeout", "schema", "sslmode", "sslrootcert",
    ]

    /// The server's unix socket, when connecting through one.
    var socketPath: String? {
        socketDirectory.map { "\($0)/.s.PGSQL.\(port)" }
    }

    /// Where the server is: `host:port`, or the path of its unix socket.
    public var serverAddress: String {
        socketPath ?? "\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }

    /// The URL without its password: what logs and errors show. The URL as it was given, when
    /// the configuration was read from one (a `schema` set since is not in it).
    public var redacted: String {
        if let givenURL { return givenURL }
        let user = username.addingPercentEncoding(withAllowedCharacters: .urlUserAllowed) ?? username
        if let socketDirectory {
            return "postgres://\(user)@/\(database)?host=\(socketDirectory)&port=\(port)\(schema.map { "&schema=\($0)" } ?? "")"
        }
        let bracketed = host.contains(":") ? "[\(host)]" : host
        return "postgres://\(user)@\(bracketed):\(port)/\(database)\(schema.map { "?schema=\($0)" } ?? "")"
    }
}
