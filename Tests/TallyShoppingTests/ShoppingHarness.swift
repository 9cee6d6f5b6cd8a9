import Foundation
import TallyProtocol
import TallyShopping
import TallyStorage
import TallyTesting
import Testing

/// A shopping service on a real database (SQLite, or PostgreSQL: `TestDatabase`) in a fresh temporary directory, called as a worker
/// calls it, with results decoded as a client sees them. The directory goes with the harness.
///
/// Every call comes from a signed-in caller, `as` (by default "ann"), whose user id is that name,
/// as the authentication middleware would set it: lists are the caller's own.
final class ShoppingHarness: Sendable {
    private let temporary = TemporaryDirectory(prefix: "tally-shopping")
    let service: ShoppingService

    var directory: String { temporary.path }
    var store: ServiceStore { service.resources.store }

    /// The harness's database: SQLite, or PostgreSQL when `TALLY_TEST_DATABASE` says so.
    let database: TestDatabase

    /// `prepare` runs on the database before the service opens it: to leave it as an older release did.
    /// `kind` is `.sqlite` for a test about SQLite's own file, whatever the environment says.
    init(kind: TestDatabase.Kind = TestDatabase.kind, prepare: (any StorageEngine) throws -> Void = { _ in }) throws {
        database = try TestDatabase(kind: kind, name: "shopping", directory: temporary.path)
        let engine = try database.engine()
        try prepare(engine)
        service = ShoppingService(store: try ShoppingStore(engine: engine))
    }

    /// Another service on the same database, as a second worker process would open it.
    func secondService() throws -> ShoppingService {
        ShoppingService(store: try ShoppingStore(engine: try database.engine()))
    }

    /// Runs `sql` in a write transaction of its own, behind the service's back.
    func execute(_ sql: SQL) throws {
        _ = try store.engine.write { try $0.execute(sql) }
    }

    /// The caller a call comes from: the person `name`, with that as their user id.
    static func caller(_ name: String) -> Caller { Caller(userID: name, username: name) }

    /// Calls `command`, then checks every list's stored tallies against its items.
    @discardableResult
    func call(_ command: String, _ args: JSONValue, as owner: String = "ann", locale: String? = nil, key: String? = nil) throws -> JSONValue {
        let result = try ServiceHarness(service).call(command, args, locale: locale, idempotencyKey: key, caller: Self.caller(owner))
        try checkTallies(after: command)
        return result
    }

    /// The error `command` refuses `args` with, or nil (and a recorded issue) if it succeeds.
    /// `owner` nil sends no caller at all. The stored tallies are checked after it too.
    func error(_ command: String, _ args: JSONValue, as owner: String? = "ann", locale: String? = nil, key: String? = nil) -> TallyError? {
        let error = ServiceHarness(service).error(command, args, locale: locale, idempotencyKey: key, caller: owner.map(Self.caller))
        if error == nil { Issue.record("\(command) \(args) succeeded") }
        #expect(throws: Never.self) { try self.checkTallies(after: command) }
        return error
    }

    /// Every list's tallies (`item_count`, `purchased_count`, `total_minor`) are what its items
    /// add up to: each command of every test checks that none of them lets the two drift apart.
    func checkTallies(after command: String) throws {
        let (lists, lines) = try store.read { session in
            (try session.fetchAll("""
                SELECT id, item_count, purchased_count, total_minor,
                    (SELECT COUNT(*) FROM shopping_item i WHERE i.list_id = l.id) AS items,
                    (SELECT COUNT(*) FROM shopping_item i WHERE i.list_id = l.id AND i.purchased = TRUE) AS purchased
                FROM shopping_list l
                """),
             try session.fetchAll("""
                SELECT list_id, unit_price_minor, purchased_quantity FROM shopping_item
                WHERE purchased = TRUE AND unit_price_minor IS NOT NULL
                """))
        }
        var totals: [Int64: Int128] = [:]
        for line in lines {
            let price: Int128 = try line["unit_price_minor"]
            totals[try line["list_id"], default: 0] += price * Int128(try line["purchased_quantity"] as Int)
        }
        for list in lists {
            let id: Int64 = try list["id"]
            let stored = (try list["item_count"] as Int, try list["purchased_count"] as Int, try list["total_minor"] as Int128)
            let counted = (try list["items"] as Int, try list["purchased"] as Int, totals[id] ?? 0)
            #expect(stored == counted, "list \(id)'s stored tallies after \(command)")
        }
    }

    /// A new list for ann (EUR unless given); returns its id.
    @discardableResult
    func list(_ name: String, kind: String = "shopping", currency: String = "EUR", from template: Int64? = nil, owner: String = "ann") throws -> Int64 {
        var args: [String: JSONValue] = ["kind": .string(kind), "name": .string(name), "currency": .string(currency)]
        if let template { args["from_template"] = .integer(template) }
        return try #require(call("shopping.create_list", .object(args), as: owner)["id"]?.intValue)
    }

    /// Adds an item and returns its id.
    @discardableResult
    func item(_ list: Int64, _ name: String, planned: Int64 = 1, unit: String? = nil, owner: String = "ann") throws -> Int64 {
        var args: [String: JSONValue] = ["list_id": .integer(list), "name": .string(name), "planned_quantity": .integer(planned)]
        if let unit { args["unit"] = .string(unit) }
        return try #require(call("shopping.add_item", .object(args), as: owner)["item"]?["id"]?.intValue)
    }

    @discardableResult
    func buy(_ list: Int64, _ item: Int64, price: String? = nil, quantity: Int64? = nil, owner: String = "ann") throws -> JSONValue {
        var args: [String: JSONValue] = ["list_id": .integer(list), "item_id": .integer(item)]
        if let price { args["unit_price"] = .string(price) }
        if let quantity { args["purchased_quantity"] = .integer(quantity) }
        return try call("shopping.mark_purchased", .object(args), as: owner)
    }

    func get(_ list: Int64, includePurchased: Bool? = nil, owner: String = "ann") throws -> JSONValue {
        var args: [String: JSONValue] = ["list_id": .integer(list)]
        if let includePurchased { args["include_purchased"] = .bool(includePurchased) }
        return try call("shopping.get_list", .object(args), as: owner)
    }

    func preferences(_ values: JSONValue, owner: String = "ann") throws {
        try call("shopping.set_preferences", values, as: owner)
    }

    /// Every event recorded so far, checked to be numbered 1, 2, 3, ... without gaps.
    func events() throws -> [CloudEvent] {
        let events = try store.events(after: 0, limit: 1000)
        #expect(events.map(\.sequence) == (0..<events.count).map { Int64($0 + 1) }, "sequences are gap-free from 1")
        return events
    }

    /// The types of the events recorded after `sequence`.
    func types(after sequence: Int64 = 0) throws -> [String] {
        try events().filter { $0.sequence > sequence }.map(\.type)
    }

    func lastSequence() throws -> Int64 { try store.lastEventSequence() }

    func count(_ sql: SQL) throws -> Int {
        try store.read { try $0.fetchValue(sql, as: Int.self) } ?? 0
    }
}

extension JSONValue {
    var names: [String] { (self["items"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue } }
}
