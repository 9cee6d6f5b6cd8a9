import TallyMoney
import TallyProtocol
import TallyStorage

/// `shopping.price_history`: the owner's purchases of one item (names compared as
/// `ItemName.key`), newest first, each with its list, date, unit price and currency; optionally
/// in one currency only. Purchases without a price are left out; so are unpurchased items and
/// deleted lists.
enum PriceHistoryCommand {
    static let pageSize = PageSize(default: 50, largest: 100)

    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: ShoppingStore) throws -> PriceHistory {
        let owner = caller.userID
        try args.allowOnly(["name", "currency", "limit"])
        let name = try args.text("name", longest: ItemName.longest, what: "an item name such as \"Milk\"")
        let currency = args.has("currency") ? try args.currency(locale: context.locale) : nil
        let limit = try args.limit(pageSize)
        let inCurrency: SQL = currency.map { "AND l.currency = \($0.code)" } ?? ""
        return try store.read { session in
            let purchases = try session.fetchAll("""
                SELECT i.id AS item_id, i.list_id, l.name AS list_name, i.name, i.unit_price_minor, i.purchased_quantity,
                       i.purchased_at_ms, l.currency
                FROM shopping_item i JOIN shopping_list l ON l.id = i.list_id
                WHERE l.owner = \(owner) AND i.name_key = \(ItemName.key(name)) AND i.purchased AND i.unit_price_minor IS NOT NULL
                  \(inCurrency)
                ORDER BY i.purchased_at_ms DESC, i.id DESC LIMIT \(limit)
                """
            ).map { row throws -> PriceHistory.Purchase in
                let code: String = try row["currency"]
                guard let rowCurrency = Currency.lookup(code) else {
                    throw StoredDataFailure("list \(try row["list_id"] as Int64) has the unknown currency \(code)")
                }
                return PriceHistory.Purchase(
                    listID: try row["list_id"], listName: try row["list_name"], itemID: try row["item_id"], name: try row["name"],
                    purchasedAt: Timestamp.rfc3339(try row["purchased_at_ms"]), price: rowCurrency.format(try row["unit_price_minor"]),
                    currency: code, quantity: try row["purchased_quantity"])
            }
            return PriceHistory(name: name, purchases: purchases)
        }
    }
}

struct PriceHistory: Encodable, Sendable {
    struct Purchase: Encodable, Sendable {
        let listID: Int64
        let listName: String
        let itemID: Int64
        /// The item's name as written on that list.
        let name: String
        let purchasedAt: String
        let price: String
        let currency: String
        let quantity: Int
    }

    /// The name asked about, trimmed.
    let name: String
    let purchases: [Purchase]
}
