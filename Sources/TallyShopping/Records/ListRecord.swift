import TallyMoney
import TallyProtocol
import TallyStorage

/// One row of `shopping_list`: a template or a shopping list.
struct ListRecord: Equatable {
    var id: Int64
    var owner: String
    var kind: ListKind
    var name: String
    var currency: String
    /// The template the list was copied from, when it was.
    var fromTemplate: Int64?
    /// Milliseconds since 1970, UTC. `openedAt` is the last `shopping.get_list`.
    var openedAt: Int64?
    var createdAt: Int64
    var updatedAt: Int64
    /// Its items' counts and total, moved by every change to its items (`ListTallies`).
    var tallies: ListTallies

    static let columns: SQL = """
        id, owner, kind, name, currency, from_template, opened_at_ms, created_at_ms, updated_at_ms, item_count, purchased_count,
        total_minor
        """

    init(row: SQLRow) throws {
        let kind: String = try row["kind"]
        guard let listKind = ListKind(rawValue: kind) else {
            throw StoredDataFailure("list \(try row["id"] as Int64) has the unknown kind \(kind)")
        }
        id = try row["id"]
        owner = try row["owner"]
        self.kind = listKind
        name = try row["name"]
        currency = try row["currency"]
        fromTemplate = try row["from_template"]
        openedAt = try row["opened_at_ms"]
        createdAt = try row["created_at_ms"]
        updatedAt = try row["updated_at_ms"]
        tallies = ListTallies(items: try row["item_count"], purchased: try row["purchased_count"], total: try row["total_minor"])
    }

    /// Inserts a new, empty list and returns it with its id.
    static func insert(
        _ session: any SQLSession, owner: String, kind: ListKind, name: String, currency: String, fromTemplate: Int64?,
        at now: Int64
    ) throws -> ListRecord {
        let row = try session.fetchOne("""
            INSERT INTO shopping_list (owner, kind, name, currency, from_template, created_at_ms, updated_at_ms, item_count,
                purchased_count, total_minor)
            VALUES (\(owner), \(kind.rawValue), \(name), \(currency), \(fromTemplate), \(timestamp: now), \(timestamp: now), 0, 0,
                \(0 as Int128))
            RETURNING \(columns)
            """)
        guard let row else { throw StorageFailure(location: "shopping", detail: "INSERT ... RETURNING gave no row") }
        return try ListRecord(row: row)
    }

    /// Writes back the columns a change may change: the name, the times and the tallies.
    func update(_ session: any SQLSession) throws {
        try session.execute(updateStatement)
    }

    private var updateStatement: SQL {
        """
        UPDATE shopping_list SET name = \(name), opened_at_ms = \(timestamp: openedAt), updated_at_ms = \(timestamp: updatedAt),
            item_count = \(tallies.items), purchased_count = \(tallies.purchased), total_minor = \(tallies.total)
        WHERE id = \(id)
        """
    }

    /// Deletes the list; its items go with it (`ON DELETE CASCADE`).
    func delete(_ session: any SQLSession) throws {
        try session.execute("DELETE FROM shopping_list WHERE id = \(id)")
    }

    /// The owner's list with this id; another owner's list is as absent as a deleted one.
    static func find(_ session: any SQLSession, owner: String, id: Int64, field: String = "args.list_id") throws -> ListRecord {
        guard let row = try session.fetchOne("SELECT \(columns) FROM shopping_list WHERE owner = \(owner) AND id = \(id)") else {
            throw ShoppingErrors.listNotFound(id, field: field)
        }
        return try ListRecord(row: row)
    }

    /// The owner's newest list of `kind` (ids grow in commit order), if there is one.
    static func newest(_ session: any SQLSession, owner: String, kind: ListKind) throws -> ListRecord? {
        try session.fetchOne(
            "SELECT \(columns) FROM shopping_list WHERE owner = \(owner) AND kind = \(kind.rawValue) ORDER BY id DESC LIMIT 1"
        ).map(ListRecord.init(row:))
    }

    /// The owner's lists (of `kind`, when given) after `id`, in id order, at most `limit`.
    static func page(_ session: any SQLSession, owner: String, kind: ListKind?, after id: Int64, limit: Int) throws -> [ListRecord] {
        let ofKind: SQL = kind.map { "AND kind = \($0.rawValue)" } ?? ""
        return try session.fetchAll(
            "SELECT \(columns) FROM shopping_list WHERE owner = \(owner) AND id > \(id) \(ofKind) ORDER BY id LIMIT \(limit)"
        ).map(ListRecord.init(row:))
    }

    /// The list's currency. Every stored code came from `Currency.lookup`.
    func storedCurrency() throws -> Currency {
        guard let found = Currency.lookup(currency) else {
            throw StoredDataFailure("list \(id) has the unknown currency \(currency)")
        }
        return found
    }

    /// The list's items, in the order they were added.
    func items(_ session: any SQLSession) throws -> [ItemRecord] {
        try ItemRecord.all(session, inLists: [id])
    }

    /// Refuses one more item when the list holds `ItemRecord.mostPerList` already.
    func checkRoom() throws {
        if tallies.items >= ItemRecord.mostPerList { throw ShoppingErrors.listFull(id) }
    }

    /// Marks the list changed now (an item of it changed): its row, tallies and all, is written
    /// when the change closes, since nothing in the change reads it back.
    mutating func touch(_ change: inout Change) {
        updatedAt = change.now
        change.executeAtClose(updateStatement)
    }
}
