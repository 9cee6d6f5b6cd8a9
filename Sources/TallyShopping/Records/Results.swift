import TallyMoney
import TallyProtocol
import TallyStorage

/// An item on the wire.
struct ItemResult: Codable, Sendable, Equatable {
    let id: Int64
    let listID: Int64
    let name: String
    let unit: String?
    let plannedQuantity: Int
    let purchasedQuantity: Int
    let purchased: Bool
    /// A decimal string with exactly the list currency's places; absent until a price is entered.
    let unitPrice: String?
    /// unit_price × purchased_quantity, present when the item counts in the total.
    let lineTotal: String?
    let purchasedAt: String?
    let createdAt: String
    let updatedAt: String
}

/// A list without its items, as `shopping.lists` and item changes show it.
struct ListSummary: Encodable, Sendable {
    let id: Int64
    let owner: String
    let kind: ListKind
    let name: String
    let currency: String
    let fromTemplate: Int64?
    let total: String
    let itemCount: Int
    let purchasedCount: Int
    let openedAt: String?
    let createdAt: String
    let updatedAt: String

    /// The list's summary, from the tallies its row keeps.
    init(_ list: ListRecord) throws {
        let currency = try list.storedCurrency()
        guard let total = list.tallies.total(in: currency) else {
            throw StoredDataFailure("list \(list.id) totals more than \(currency.code) amounts hold")
        }
        id = list.id
        owner = list.owner
        kind = list.kind
        name = list.name
        self.currency = list.currency
        fromTemplate = list.fromTemplate
        self.total = currency.format(total)
        itemCount = list.tallies.items
        purchasedCount = list.tallies.purchased
        openedAt = list.openedAt.map(Timestamp.rfc3339)
        createdAt = Timestamp.rfc3339(list.createdAt)
        updatedAt = Timestamp.rfc3339(list.updatedAt)
    }
}

/// A list with its items: `shopping.get_list` and `shopping.create_list`.
struct ListDetail: Encodable, Sendable {
    @Inlined var summary: ListSummary
    let items: [ItemResult]
    /// Purchased items left out of `items` by auto-removal (still counted in the total).
    let hiddenItems: Int
    /// What shopping memory carried over into a new list; absent when nothing was.
    let carriedOver: CarriedOver?
}

/// The result of a change to one item: the item and its list after the change.
struct ItemChange: Encodable, Sendable {
    let item: ItemResult
    let list: ListSummary
    /// Price comparison: present when it ran (see `PriceComparison`).
    var comparison: Comparison?
}

/// How a purchase's price compares with the last price paid for the same item.
struct Comparison: Codable, Sendable, Equatable {
    enum Outcome: String, Codable, Sendable {
        case higher, lower, same
        case firstTime = "first_time"
    }

    let outcome: Outcome
    let price: String
    let previousPrice: String?
    let currency: String
    /// The list of the previous purchase.
    let previousListID: Int64?
}

struct PreferencesResult: Codable, Sendable, Equatable {
    let owner: String
    let shoppingMemory: Bool
    let priceComparison: Bool
    let autoRemovePurchased: Bool
}

/// Items shopping memory carried into a new shopping list, and from which list.
struct CarriedOver: Codable, Sendable, Equatable {
    struct Item: Codable, Sendable, Equatable {
        let itemID: Int64
        let fromItemID: Int64
        let name: String
        let unit: String?
        /// How many were carried: all planned when none were bought, else the shortfall.
        let quantity: Int
    }

    let fromListID: Int64
    let items: [Item]
}
