import Foundation
import GRDB
import TallyMoney
import TallyStorage

/// One row of `account`.
struct AccountRecord: Codable, Equatable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "account"

    var id: Int64?
    var owner: String
    var name: String
    var nameKey: String
    var currency: String
    /// Minor units of `currency`.
    var startingBalance: Int64
    var isDefault: Bool
    /// Milliseconds since 1970, UTC.
    var createdAt: Int64
    var updatedAt: Int64

    enum CodingKeys: String, CodingKey {
        case id, owner, name, currency
        case nameKey = "name_key"
        case startingBalance = "starting_balance_minor"
        case isDefault = "is_default"
        case createdAt = "created_at_ms"
        case updatedAt = "updated_at_ms"
    }

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let owner = Column(CodingKeys.owner)
        static let nameKey = Column(CodingKeys.nameKey)
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    /// The owner's account with this id; another owner's account is as absent as a deleted one.
    static func find(_ db: Database, owner: String, id: Int64) throws -> AccountRecord {
        guard let account = try AccountRecord.filter(Columns.owner == owner && Columns.id == id).fetchOne(db) else {
            throw AccountErrors.notFound(id)
        }
        return account
    }

    /// Refuses `nameKey` when another of the owner's accounts (not `exceptID`) has it.
    static func checkNameIsFree(_ db: Database, owner: String, name: AccountName, exceptID: Int64? = nil) throws {
        var request = AccountRecord.filter(Columns.owner == owner && Columns.nameKey == name.key)
        if let exceptID { request = request.filter(Columns.id != exceptID) }
        if let existing = try request.fetchOne(db) {
            throw AccountErrors.nameTaken(by: existing)
        }
    }

    /// Makes this account the owner's only default: clears the flag on the others first (the
    /// partial unique index allows one default per owner at any moment).
    static func clearDefault(_ db: Database, owner: String, except id: Int64?, at now: Int64) throws {
        try db.execute(
            sql: "UPDATE account SET is_default = 0, updated_at_ms = ? WHERE owner = ? AND is_default AND id IS NOT ?",
            arguments: [now, owner, id])
    }

    /// The account's currency. Every stored code came from `Currency.lookup`, so this fails only
    /// if the built-in table lost a currency: not the client's doing (`internal`).
    func storedCurrency() throws -> Currency {
        guard let currency = Currency.lookup(currency) else {
            throw AccountStoreFailure(description: "account \(id ?? 0) has the unknown currency \(currency)")
        }
        return currency
    }

    /// The account as clients see it.
    func result() throws -> AccountResult {
        AccountResult(
            id: id ?? 0, owner: owner, name: name, currency: currency,
            startingBalance: try storedCurrency().format(startingBalance),
            isDefault: isDefault, createdAt: Timestamp.rfc3339(createdAt), updatedAt: Timestamp.rfc3339(updatedAt))
    }
}

/// Stored data the service cannot read: a bug or a hand edit, never the client's doing (`internal`).
struct AccountStoreFailure: Error, CustomStringConvertible {
    let description: String
}

/// An account on the wire.
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

    enum CodingKeys: String, CodingKey {
        case id, owner, name, currency
        case startingBalance = "starting_balance"
        case isDefault = "is_default"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }
}

