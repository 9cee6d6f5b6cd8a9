import TallyProtocol
import TallyStorage

/// The domain events of the shopping service: each change records one or more of them, in its
/// transaction, as CloudEvents of type `shopping.<name>` (schemas/events/shopping.<name>.json).
/// Every event's data names its `owner`; list and item events also their `list_id`. The subject
/// is `<owner>/<list id>`, or `<owner>/preferences` for the owner's switches.
enum ShoppingEvent: ServiceEvent {
    case listCreated(ListCreated)
    case listRenamed(ListRenamed)
    case listDeleted(ListDeleted)
    case itemAdded(ItemEvent)
    case itemUpdated(ItemEvent)
    case itemRemoved(ItemEvent)
    case itemPurchased(ItemEvent)
    case itemUnpurchased(ItemEvent)
    case priceChanged(PriceChanged)
    case itemsCarriedOver(ItemsCarriedOver)
    case preferencesChanged(PreferencesChanged)

    var type: String {
        switch self {
        case .listCreated: "shopping.list_created"
        case .listRenamed: "shopping.list_renamed"
        case .listDeleted: "shopping.list_deleted"
        case .itemAdded: "shopping.item_added"
        case .itemUpdated: "shopping.item_updated"
        case .itemRemoved: "shopping.item_removed"
        case .itemPurchased: "shopping.item_purchased"
        case .itemUnpurchased: "shopping.item_unpurchased"
        case .priceChanged: "shopping.price_changed"
        case .itemsCarriedOver: "shopping.items_carried_over"
        case .preferencesChanged: "shopping.preferences_changed"
        }
    }

    var payload: any EventPayload {
        switch self {
        case .listCreated(let data): data
        case .listRenamed(let data): data
        case .listDeleted(let data): data
        case .itemAdded(let data), .itemUpdated(let data), .itemRemoved(let data), .itemPurchased(let data),
            .itemUnpurchased(let data):
            data
        case .priceChanged(let data): data
        case .itemsCarriedOver(let data): data
        case .preferencesChanged(let data): data
        }
    }

    /// An event about one of the owner's lists, whose subject is `<owner>/<list id>`.
    protocol ListEventPayload: EventPayload {
        var owner: String { get }
        var listID: Int64 { get }
    }

    struct ListCreated: ListEventPayload {
        let owner: String
        let listID: Int64
        let kind: ListKind
        let name: String
        let currency: String
        let fromTemplate: Int64?
        /// Items the list started with: copied from the template and carried over.
        let itemCount: Int
    }

    struct ListRenamed: ListEventPayload {
        let owner: String
        let listID: Int64
        let name: String
        let previousName: String
    }

    struct ListDeleted: ListEventPayload {
        let owner: String
        let listID: Int64
        let kind: ListKind
        let name: String
    }

    /// An item event: the item as it is after the change (as it was, for a removal), in the
    /// list's currency, and for updates which fields changed.
    struct ItemEvent: ListEventPayload {
        let owner: String
        let listID: Int64
        let currency: String
        let item: ItemResult
        var changed: [String]?
    }

    struct PriceChanged: ListEventPayload {
        let owner: String
        let listID: Int64
        let itemID: Int64
        let itemName: String
        let currency: String
        let price: String
        let previousPrice: String
        let previousListID: Int64
        /// `higher` or `lower`.
        let direction: String
    }

    /// What shopping memory carried into the new list, as `shopping.create_list` answers it.
    struct ItemsCarriedOver: ListEventPayload {
        let owner: String
        let listID: Int64
        @Inlined var carried: CarriedOver
    }

    /// The owner's switches after the change, as `shopping.set_preferences` answers them, and
    /// which of them it changed.
    struct PreferencesChanged: EventPayload {
        @Inlined var preferences: PreferencesResult
        let changed: [String]

        var subject: String? { "\(preferences.owner)/preferences" }
    }
}

extension ShoppingEvent.ListEventPayload {
    var subject: String? { "\(owner)/\(listID)" }
}
