import Foundation
import TallyAccounts
import TallyProtocol
import TallyStorage
import TallyTesting
import Testing

/// An accounts service on a real database (SQLite, or PostgreSQL: `TestDatabase`) in a fresh temporary directory, called as a worker
/// calls it, with results decoded as a client sees them. The directory goes with the harness.
///
/// Every call comes from a signed-in caller, `as` (by default "ann"), whose user id is that name,
/// as the authentication middleware would set it: accounts are the caller's own.
final class AccountsHarness: Sendable {
    private let temporary = TemporaryDirectory(prefix: "tally-accounts")
    let service: AccountsService

    var directory: String { temporary.path }
    var store: ServiceStore { service.resources.store }

    /// The harness's database: SQLite, or PostgreSQL when `TALLY_TEST_DATABASE` says so.
    let database: TestDatabase

    /// `prepare` runs on the database before the service opens it: to leave it as an older release did.
    /// `kind` is `.sqlite` for a test about SQLite's own file, whatever the environment says.
    init(kind: TestDatabase.Kind = TestDatabase.kind, prepare: (any StorageEngine) throws -> Void = { _ in }) throws {
        database = try TestDatabase(kind: kind, name: "accounts", directory: temporary.path)
        let engine = try database.engine()
        try prepare(engine)
        service = AccountsService(store: try AccountStore(engine: engine))
    }

    /// Another service on the same database, as a second worker process would open it.
    func secondService() throws -> AccountsService {
        AccountsService(store: try AccountStore(engine: try database.engine()))
    }

    /// Runs `sql` in a write transaction of its own, behind the service's back.
    func execute(_ sql: SQL) throws {
        _ = try store.engine.write { try $0.execute(sql) }
    }

    /// The caller a call comes from: the person `name`, with that as their user id.
    static func caller(_ name: String) -> Caller { Caller(userID: name, username: name) }

    @discardableResult
    func call(_ command: String, _ args: JSONValue, as owner: String = "ann", locale: String? = nil, key: String? = nil) throws -> JSONValue {
        try Self.call(service, command, args, as: owner, locale: locale, key: key)
    }

    static func call(
        _ service: AccountsService, _ command: String, _ args: JSONValue, as owner: String = "ann", locale: String? = nil,
        key: String? = nil
    ) throws -> JSONValue {
        try ServiceHarness(service).call(command, args, locale: locale, idempotencyKey: key, caller: caller(owner))
    }

    /// The error `command` refuses `args` with, or nil (and a recorded issue) if it succeeds.
    /// `owner` nil sends no caller at all.
    func error(_ command: String, _ args: JSONValue, as owner: String? = "ann", locale: String? = nil, key: String? = nil) -> TallyError? {
        let error = ServiceHarness(service).error(command, args, locale: locale, idempotencyKey: key, caller: owner.map(Self.caller))
        if error == nil { Issue.record("\(command) \(args) succeeded") }
        return error
    }

    /// Creates an account of `owner` (USD, balance 0 unless given) and returns it.
    @discardableResult
    func create(
        _ name: String, owner: String = "ann", balance: String = "0.00", currency: String = "USD", isDefault: Bool? = nil
    ) throws -> JSONValue {
        var args: [String: JSONValue] = ["name": .string(name), "starting_balance": .string(balance), "currency": .string(currency)]
        if let isDefault { args["is_default"] = .bool(isDefault) }
        return try call("accounts.create", .object(args), as: owner)
    }

    func count(_ sql: SQL = "SELECT COUNT(*) FROM account") throws -> Int {
        try store.read { try $0.fetchValue(sql, as: Int.self) } ?? 0
    }

    /// The owner's accounts, every page.
    func all(owner: String = "ann") throws -> [JSONValue] {
        var accounts: [JSONValue] = []
        var cursor: JSONValue = .null
        repeat {
            let page = try call("accounts.list", ["limit": 100, "cursor": cursor], as: owner)
            accounts += page["accounts"]?.arrayValue ?? []
            cursor = page["next_cursor"] ?? .null
        } while cursor != .null
        return accounts
    }

    func defaults(owner: String = "ann") throws -> [String] {
        try all(owner: owner).filter { $0["is_default"] == true }.compactMap { $0["name"]?.stringValue }
    }
}

extension JSONValue {
    var id: JSONValue { self["id"] ?? .null }
}
