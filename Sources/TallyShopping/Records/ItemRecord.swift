import TallyMoney
import TallyProtocol
import TallyStorage

/// One row of `shopping_item`.
struct ItemRecord: Equatable {
    /// A list's items come back whole in one reply; this keeps it well inside a reply's size.
    static let mostPerList = 500

    var id: Int64
    var listID: Int64
    var name: String
    /// `ItemName.key(name)`: what "the same item" means.
    var nameKey: String
    var unit: String?
    var plannedQuantity: Int
    var purchasedQuantity: Int
    var purchased: Bool
    /// Minor units of the list's currency; nil until a price is entered.
    var unitPrice: Int128?
    /// Milliseconds since 1970, UTC.
    var purchasedAt: Int64?
    var createdAt: Int64
    var updatedAt: Int64

    static let columns: SQL = """
        id, list_id, name, name_key, unit, planned_quantity, purchased_quantity, purchased, unit_price_minor, purchased_at_ms,
        created_at_ms, updated_at_ms
        """

    init(row: SQLRow) throws {
        id = try row["id"]
        listID = try row["list_id"]
        name = try row["name"]
        nameKey = try row["name_key"]
        unit = try row["unit"]
        plannedQuantity = try row["planned_quantity"]
        purchasedQuantity = try row["purchased_quantity"]
        purchased = try row["purchased"]
        unitPrice = try row["unit_price_minor"]
        purchasedAt = try row["purchased_at_ms"]
        createdAt = try row["created_at_ms"]
        updatedAt = try row["updated_at_ms"]
    }

    // The three ways an item is written each move its list's tallies, which the caller writes
    // back with the list (`ListRecord.update`, `touch`) in the same change.

    /// Inserts a new item into `list`, not purchased and without a price, and returns it with its id.
    static func insert(
        _ session: any SQLSession, into list: inout ListRecord, name: String, nameKey: String, unit: String?, plannedQuantity: Int,
        at now: Int64
    ) throws -> ItemRecord {
        let row = try session.fetchOne("""
            INSERT INTO shopping_item (list_id, name, name_key, unit, planned_quantity, purchased_quantity, purchased, created_at_ms, updated_at_ms)
            VALUES (\(list.id), \(name), \(nameKey), \(unit), \(plannedQuantity), 0, FALSE, \(timestamp: now), \(timestamp: now))
            RETURNING \(columns)
            """)
        guard let row else { throw StorageFailure(location: "shopping", detail: "INSERT ... RETURNING gave no row") }
        let item = try ItemRecord(row: row)
        try list.tallies.add(item)
        return item
    }

    /// Writes every column but the list and the creation time back; `original` is the item as stored.
    func update(_ session: any SQLSession, from original: ItemRecord, in list: inout ListRecord) throws {
        try list.tallies.remove(original)
        try list.tallies.add(self)
        try session.execute("""
            UPDATE shopping_item SET name = \(name), name_key = \(nameKey), unit = \(unit), planned_quantity = \(plannedQuantity),
                purchased_quantity = \(purchasedQuantity), purchased = \(purchased), unit_price_minor = \(unitPrice),
                purchased_at_ms = \(timestamp: purchasedAt), updated_at_ms = \(timestamp: updatedAt)
            WHERE id = \(id)
            """)
    }

    /// Deletes the item, as stored, from `list`.
    func delete(_ session: any SQLSession, from list: inout ListRecord) throws {
        try list.tallies.remove(self)
        try session.execute("DELETE FROM shopping_item WHERE id = \(id)")
    }

    /// The item `id` of `list`.
    static func find(_ session: any SQLSession, list: ListRecord, id: Int64) throws -> ItemRecord {
        guard let row = try session.fetchOne("SELECT \(columns) FROM shopping_item WHERE list_id = \(list.id) AND id = \(id)") else {
            throw ShoppingErrors.itemNotFound(id, list: list.id)
        }
        return try ItemRecord(row: row)
    }

    /// The items of `lists`, in id order (the order they were added).
    static func all(_ session: any SQLSession, inLists lists: [Int64]) throws -> [ItemRecord] {
        guard !lists.isEmpty else { return [] }
        return try session.fetchAll("SELECT \(columns) FROM shopping_item WHERE list_id IN (\(list: lists)) ORDER BY id")
            .map(ItemRecord.init(row:))
    }

    /// Whether the item counts in its list's total: purchased, with a price.
    var counts: Bool { purchased && unitPrice != nil }

    /// Unit price × purchased quantity, nil without a price or when the product passes 128 bits
    /// (a price no request can set; see `ListTallies` for the limit a total keeps to).
    var line: Int128? {
        unitPrice.flatMap { price in
            let (product, overflow) = price.multipliedReportingOverflow(by: Int128(purchasedQuantity))
            return overflow ? nil : product
        }
    }

    func result(_ currency: Currency) -> ItemResult {
        ItemResult(
            id: id, listID: listID, name: name, unit: unit, plannedQuantity: plannedQuantity,
            purchasedQuantity: purchasedQuantity, purchased: purchased, unitPrice: unitPrice.map(currency.format),
            lineTotal: counts ? line.map(currency.format) : nil, purchasedAt: purchasedAt.map(Timestamp.rfc3339),
            createdAt: Timestamp.rfc3339(createdAt), updatedAt: Timestamp.rfc3339(updatedAt))
    }
}
