import Foundation
import TallyAuth
import TallyIdentity
import TallyProtocol
import TallyStorage
import TallyTesting
import Testing

/// An identity service on a real database (SQLite, or PostgreSQL: `TestDatabase`) in a fresh temporary directory, called as a worker
/// calls it (the caller set as the authentication middleware would set it from a token).
final class IdentityHarness: Sendable {
    private let temporary = TemporaryDirectory(prefix: "tally-identity")
    let key: TokenSigningKey
    let service: IdentityService
    /// The harness's database: SQLite, or PostgreSQL when `TALLY_TEST_DATABASE` says so.
    let database: TestDatabase

    var directory: String { temporary.path }
    var store: ServiceStore { service.resources.store.store }

    static let password = "correct horse battery staple"

    init(throttle: LoginThrottle = LoginThrottle(), passwordCost: Int = ScryptParameters.weakestAccepted) throws {
        key = try TokenSigningKey.generate(id: "unit")
        database = try TestDatabase(name: "identity", directory: temporary.path)
        service = try Self.service(in: database, key: key, throttle: throttle, passwordCost: passwordCost)
    }

    /// Another service on the same database (a second worker, or one restarted with other settings).
    func secondService(throttle: LoginThrottle = LoginThrottle(), passwordCost: Int) throws -> IdentityService {
        try Self.service(in: database, key: key, throttle: throttle, passwordCost: passwordCost)
    }

    private static func service(in database: TestDatabase, key: TokenSigningKey, throttle: LoginThrottle, passwordCost: Int) throws -> IdentityService {
        try IdentityService(
            store: try IdentityStore(engine: try database.engine()), signingKey: key,
            settings: IdentitySettings(passwordHashing: ScryptParameters(logN: passwordCost), throttle: throttle))
    }

    @discardableResult
    func call(_ command: String, _ args: JSONValue = [:], as caller: Caller? = nil, key: String? = nil, on other: IdentityService? = nil) throws -> JSONValue {
        try ServiceHarness(other ?? service).call(command, args, idempotencyKey: key, caller: caller)
    }

    func error(_ command: String, _ args: JSONValue = [:], as caller: Caller? = nil, key: String? = nil) -> TallyError? {
        ServiceHarness(service).error(command, args, idempotencyKey: key, caller: caller)
    }

    /// The caller an access token names, as the middleware finds it.
    func caller(of token: JSONValue?) throws -> Caller {
        try AccessTokenVerifier(keys: [key.verificationKey]).verify(try #require(token?.stringValue)).caller
    }

    @discardableResult
    func signUp(_ username: String, password: String = password) throws -> JSONValue {
        try call("identity.signup", ["username": .string(username), "password": .string(password)])
    }

    /// Logs in; returns the result (tokens and user).
    func logIn(_ username: String, password: String = password) throws -> JSONValue {
        try call("identity.login", ["username": .string(username), "password": .string(password)])
    }

    /// `username` made an admin as an operator makes one (`tally identity add-user --role admin`),
    /// logged in: the caller of their access token. Identity's privileged commands confirm their
    /// caller's session, so an admin here is a real one.
    func signedInAdmin(_ username: String) throws -> Caller {
        try IdentityAdministration(store: service.resources.store, passwordHashing: ScryptParameters(logN: ScryptParameters.weakestAccepted))
            .addUser(username, password: Self.password, roles: ["admin"])
        return try caller(of: logIn(username)["access_token"])
    }

    func refresh(_ token: JSONValue?) throws -> JSONValue {
        try call("identity.refresh", ["refresh_token": token ?? .null])
    }

    /// Every event the service has recorded, as `identity.events` serves them.
    func events() throws -> [CloudEvent] {
        try store.events(after: 0, limit: 1000)
    }

    /// Every byte the service has written. On SQLite: the database, its WAL and its shared memory.
    /// On PostgreSQL, whose files are the server's: every row of every table as text, and every
    /// byte column with its printable bytes as they are (`encode(..., 'escape')`), so a secret
    /// kept as text or as bytes would show.
    func storedBytes() throws -> Data {
        guard database.kind == .postgres else {
            return try FileManager.default.contentsOfDirectory(atPath: directory).reduce(into: Data()) { all, name in
                all.append(FileManager.default.contents(atPath: "\(directory)/\(name)") ?? Data())
            }
        }
        return try store.read { session in
            let columns = try session.fetchAll("""
                SELECT table_name, column_name, data_type FROM information_schema.columns
                WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position
                """)
            var all = Data()
            for table in Set(try columns.map { try $0["table_name"] as String }).sorted() {
                for row in try session.fetchAll("SELECT t::text AS row FROM \(raw: "\"\(table)\"") t") {
                    all.append(Data(try (row["row"] as String).utf8))
                }
            }
            for column in columns where try column["data_type"] as String == "bytea" {
                let (table, name) = (try column["table_name"] as String, try column["column_name"] as String)
                for row in try session.fetchAll("SELECT encode(\(raw: "\"\(name)\""), 'escape') AS bytes FROM \(raw: "\"\(table)\"")") {
                    all.append(Data(try (row["bytes"] as String?)?.utf8 ?? "".utf8))
                }
            }
            return all
        }
    }
}
