import GRDB
import TallyMoney
import TallyProtocol
import TallyStorage

/// One row of `shopping_list`: a template or a shopping list.
struct ListRecord: Codable, Equatable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "shopping_list"

    var id: Int64?
    var owner: String
    var kind: ListKind
    var name: String
    var currency: String
    var fromTemplate: Int64?
    var openedAt: Int64?
    var createdAt: Int64
    var updatedAt: Int64

    enum CodingKeys: String, CodingKey {
        case id, owner, kind, name, currency
        case fromTemplate = "from_template"
        case openedAt = "opened_at_ms"
        case createdAt = "created_at_ms"
        case updatedAt = "updated_at_ms"
    }

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let owner = Column(CodingKeys.owner)
        static let kind = Column(CodingKeys.kind)
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    /// The owner's list with this id; another owner's list is as absent as a deleted one.
    static func find(_ db: Database, owner: String, id: Int64, field: String = "args.list_id") throws -> ListRecord {
        guard let list = try ListRecord.filter(Columns.owner == owner && Columns.id == id).fetchOne(db) else {
            throw ShoppingErrors.listNotFound(id, field: field)
        }
        return list
    }

    /// The list's currency. Every stored code came from `Currency.lookup`.
    func storedCurrency() throws -> Currency {
        guard let found = Currency.lookup(currency) else {
            throw ShoppingStoreFailure(description: "list \(id ?? 0) has the unknown currency \(currency)")
        }
        return found
    }

    func items(_ db: Database) throws -> [ItemRecord] {
        try ItemRecord.filter(ItemRecord.Columns.listID == id).order(ItemRecord.Columns.id).fetchAll(db)
    }

    /// Marks the list changed now (an item of it changed).
    mutating func touch(_ db: Database, at now: Int64) throws {
        updatedAt = now
        try update(db)
    }

    var subject: String { "\(owner)/\(id ?? 0)" }
}

/// One row of `shopping_item`.
struct ItemRecord: Codable, Equatable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "shopping_item"
    /// A list's items come back whole in one reply; this keeps it well inside a reply's size.
    static let mostPerList = 500

    var id: Int64?
    var listID: Int64
    var name: String
    var nameKey: String
    var unit: String?
    var plannedQuantity: Int64
    var purchasedQuantity: Int64
    var purchased: Bool
    var unitPrice: Int64?
    var purchasedAt: Int64?
    var createdAt: Int64
    var updatedAt: Int64

    enum CodingKeys: String, CodingKey {
        case id, name, unit, purchased
        case listID = "list_id"
        case nameKey = "name_key"
        case plannedQuantity = "planned_quantity"
        case purchasedQuantity = "purchased_quantity"
        case unitPrice = "unit_price_minor"
        case purchasedAt = "purchased_at_ms"
        case createdAt = "created_at_ms"
        case updatedAt = "updated_at_ms"
    }

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let listID = Column(CodingKeys.listID)
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    static func find(_ db: Database, list: ListRecord, id: Int64) throws -> ItemRecord {
        guard let item = try ItemRecord.filter(Columns.listID == list.id && Columns.id == id).fetchOne(db) else {
            throw ShoppingErrors.itemNotFound(id, list: list.id ?? 0)
        }
        return item
    }

    static func checkRoom(_ db: Database, in list: ListRecord, adding count: Int = 1) throws {
        let present = try ItemRecord.filter(Columns.listID == list.id).fetchCount(db)
        if present + count > mostPerList { throw ShoppingErrors.listFull(list.id ?? 0) }
    }

    /// Whether the item counts in its list's total: purchased, with a price.
    var counts: Bool { purchased && unitPrice != nil }

    /// Unit price × purchased quantity, nil when the product passes 64 bits.
    var line: Int64? {
        let (product, overflow) = (unitPrice ?? 0).multipliedReportingOverflow(by: purchasedQuantity)
        return overflow ? nil : product
    }

    func result(_ currency: Currency) -> ItemResult {
        return ItemResult(
            id: id ?? 0, listID: listID, name: name, unit: unit, plannedQuantity: plannedQuantity,
            purchasedQuantity: purchasedQuantity, purchased: purchased, unitPrice: unitPrice.map { currency.format(Int128($0)) },
            lineTotal: counts ? line.map { currency.format(Int128($0)) } : nil, purchasedAt: purchasedAt.map(Timestamp.rfc3339),
            createdAt: Timestamp.rfc3339(createdAt), updatedAt: Timestamp.rfc3339(updatedAt))
    }
}

/// A list's total: the sum of unit price × purchased quantity over its purchased, priced items,
/// in integer minor units. Nil when it would pass the currency's largest amount (12 digits
/// before the point); changes that would get there are refused, so a stored list always has one.
enum ListTotal {
    static func of(_ items: [ItemRecord], in currency: Currency) -> Int64? {
        var sum: Int64 = 0
        for item in items where item.counts {
            guard let line = item.line, Int128(line) <= currency.largestAmount else { return nil }
            sum += line
            guard Int128(sum) <= currency.largestAmount else { return nil }
        }
        return sum
    }

    /// The total, or the error a change that made it too large gets on `field`.
    static func checked(_ items: [ItemRecord], in currency: Currency, field: String) throws -> Int64 {
        guard let total = of(items, in: currency) else {
            throw ShoppingErrors.totalTooLarge(currency.code, largest: currency.format(currency.largestAmount), field: field)
        }
        return total
    }
}

/// Stored data the service cannot read: a bug or a hand edit, never the client's doing (`internal`).
struct ShoppingStoreFailure: Error, CustomStringConvertible {
    let description: String
}

/// An owner's switches; an owner who never set them has the defaults, all on.
struct Preferences: Codable, Equatable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "shopping_preferences"

    var owner: String
    var shoppingMemory: Bool = true
    var priceComparison: Bool = true
    var autoRemovePurchased: Bool = true
    var updatedAt: Int64 = 0

    enum CodingKeys: String, CodingKey {
        case owner
        case shoppingMemory = "shopping_memory"
        case priceComparison = "price_comparison"
        case autoRemovePurchased = "auto_remove_purchased"
        case updatedAt = "updated_at_ms"
    }

    static func of(_ db: Database, owner: String) throws -> Preferences {
        try Preferences.filter(Column("owner") == owner).fetchOne(db) ?? Preferences(owner: owner)
    }

    var result: PreferencesResult {
        PreferencesResult(
            owner: owner, shoppingMemory: shoppingMemory, priceComparison: priceComparison, autoRemovePurchased: autoRemovePurchased)
    }
}
