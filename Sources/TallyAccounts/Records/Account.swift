import Foundation
import TallyMoney
import TallyProtocol
import TallyStorage

/// One row of `account`.
struct AccountRecord: Equatable {
    var id: Int64
    var owner: String
    var name: String
    var nameKey: String
    var currency: String
    /// Minor units of `currency`.
    var startingBalance: Int128
    var isDefault: Bool
    /// Milliseconds since 1970, UTC.
    var createdAt: Int64
    var updatedAt: Int64

    static let columns: SQL = "id, owner, name, name_key, currency, starting_balance_minor, is_default, created_at_ms, updated_at_ms"

    init(
        id: Int64, owner: String, name: String, nameKey: String, currency: String, startingBalance: Int128, isDefault: Bool,
        createdAt: Int64, updatedAt: Int64
    ) {
        self.id = id
        self.owner = owner
        self.name = name
        self.nameKey = nameKey
        self.currency = currency
        self.startingBalance = startingBalance
        self.isDefault = isDefault
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    init(row: SQLRow) throws {
        try self.init(
            id: row["id"], owner: row["owner"], name: row["name"], nameKey: row["name_key"], currency: row["currency"],
            startingBalance: row["starting_balance_minor"], isDefault: row["is_default"], createdAt: row["created_at_ms"],
            updatedAt: row["updated_at_ms"])
    }

    /// Inserts a new account and returns it with its id.
    static func insert(
        _ session: any SQLSession, owner: String, name: AccountName, currency: String, startingBalance: Int128, isDefault: Bool,
        at now: Int64
    ) throws -> AccountRecord {
        let row = try session.fetchOne("""
            INSERT INTO account (owner, name, name_key, currency, starting_balance_minor, is_default, created_at_ms, updated_at_ms)
            VALUES (\(owner), \(name.text), \(name.key), \(currency), \(startingBalance), \(isDefault), \(timestamp: now), \(timestamp: now))
            RETURNING \(columns)
            """)
        guard let row else { throw StorageFailure(location: "accounts", detail: "INSERT ... RETURNING gave no row") }
        return try AccountRecord(row: row)
    }

    /// Writes every column back.
    func update(_ session: any SQLSession) throws {
        try session.execute("""
            UPDATE account SET name = \(name), name_key = \(nameKey), currency = \(currency),
                starting_balance_minor = \(startingBalance), is_default = \(isDefault), updated_at_ms = \(timestamp: updatedAt)
            WHERE id = \(id)
            """)
    }

    func delete(_ session: any SQLSession) throws {
        try session.execute("DELETE FROM account WHERE id = \(id)")
    }

    /// The owner's account with this id; another owner's account is as absent as a deleted one.
    static func find(_ session: any SQLSession, owner: String, id: Int64) throws -> AccountRecord {
        guard let row = try session.fetchOne("SELECT \(columns) FROM account WHERE owner = \(owner) AND id = \(id)") else {
            throw AccountErrors.notFound(id)
        }
        return try AccountRecord(row: row)
    }

    /// The owner's accounts after `id`, in id order, at most `limit`.
    static func page(_ session: any SQLSession, owner: String, after id: Int64, limit: Int) throws -> [AccountRecord] {
        try session.fetchAll("SELECT \(columns) FROM account WHERE owner = \(owner) AND id > \(id) ORDER BY id LIMIT \(limit)")
            .map(AccountRecord.init(row:))
    }

    /// Refuses `name` when another of the owner's accounts (not `exceptID`) has it.
    static func checkNameIsFree(_ session: any SQLSession, owner: String, name: AccountName, exceptID: Int64? = nil) throws {
        let except: SQL = exceptID.map { "AND id <> \($0)" } ?? ""
        if let row = try session.fetchOne("SELECT \(columns) FROM account WHERE owner = \(owner) AND name_key = \(name.key) \(except) LIMIT 1") {
            throw AccountErrors.nameTaken(by: try AccountRecord(row: row))
        }
    }

    /// Makes room for a new default: clears the flag on the owner's other accounts first (the
    /// partial unique index allows one default per owner at any moment).
    static func clearDefault(_ session: any SQLSession, owner: String, except id: Int64?, at now: Int64) throws {
        let except: SQL = id.map { "AND id <> \($0)" } ?? ""
        try session.execute(
            "UPDATE account SET is_default = FALSE, updated_at_ms = \(timestamp: now) WHERE owner = \(owner) AND is_default \(except)")
    }

    /// The account's currency. Every stored code came from `Currency.lookup`, so this fails only
    /// if the built-in table lost a currency: not the client's doing (`internal`).
    func storedCurrency() throws -> Currency {
        guard let currency = Currency.lookup(currency) else {
            throw StoredDataFailure("account \(id) has the unknown currency \(currency)")
        }
        return currency
    }

    /// The account as clients see it.
    func result() throws -> AccountResult {
        AccountResult(
            id: id, owner: owner, name: name, currency: currency,
            startingBalance: try storedCurrency().format(startingBalance),
            isDefault: isDefault, createdAt: Timestamp.rfc3339(createdAt), updatedAt: Timestamp.rfc3339(updatedAt))
    }
}

/// An account on the wire, and the data of the account's events.
struct AccountResult: Codable, Sendable {
    let id: Int64
    let owner: String
    let name: String
    let currency: String
    /// A decimal string with exactly the currency's places: `"1250.00"`, `"-80.50"`, JPY `"5000"`.
    let startingBalance: String
    let isDefault: Bool
    let createdAt: String
    let updatedAt: String
}
