import TallyProtocol
import TallyStorage
import TallyWorker

/// The shopping service: each owner's template lists ("Weekly", "Monthly") and shopping lists,
/// their items, quantities and prices, the list totals, shopping memory, price comparison,
/// auto-removal of purchased items and the owner's preferences for those three, kept in
/// `shopping.sqlite`.
///
/// Every change runs in one write transaction that also records its domain events in the
/// service's event log (`shopping.events`), which every worker process on the host shares.
public struct ShoppingService: ServiceHandler {
    public static let table = CommandTable<ShoppingStore>("shopping") { table in
        table.change("shopping.create_list", "A new template or shopping list, empty or copied from a template, with shopping memory.", CreateListCommand.run)
        table.query("shopping.get_list", "Open a list: its items and total, purchased items hidden by auto-removal.", GetListCommand.run)
        table.query("shopping.lists", "An owner's lists with their totals, a page at a time.", ListsCommand.run)
        table.change("shopping.rename_list", "Give a list a new name.", RenameListCommand.run)
        table.change("shopping.delete_list", "Remove a list and its items.", DeleteListCommand.run)
        table.change("shopping.add_item", "Add an item to a list.", AddItemCommand.run)
        table.change("shopping.update_item", "Change an item's name, unit or quantities.", UpdateItemCommand.run)
        table.change("shopping.remove_item", "Take an item off a list.", RemoveItemCommand.run)
        table.change("shopping.mark_purchased", "Mark an item bought, with its price and quantity, compared with the last price paid.", MarkPurchasedCommand.run)
        table.change("shopping.mark_unpurchased", "Mark an item not bought after all.", MarkUnpurchasedCommand.run)
        table.change("shopping.set_price", "Set an item's unit price, compared with the last price paid.", SetPriceCommand.run)
        table.query("shopping.get_preferences", "An owner's shopping memory, price comparison and auto-removal switches.", GetPreferencesCommand.run)
        table.change("shopping.set_preferences", "Turn shopping memory, price comparison or auto-removal on or off.", SetPreferencesCommand.run)
        table.query("shopping.price_history", "What an owner paid for an item, newest first.", PriceHistoryCommand.run)
        table.query("shopping.events", access: .role("service"), "The shopping service's domain events after a sequence, oldest first, for subscribers that missed some.") { args, _, store in
            try args.allowOnly(["after", "limit"])
            let after = try args.optionalInteger("after", in: 0...Int.max) ?? 0
            let limit = try args.optionalInteger("limit", in: 1...1000) ?? 100
            return LegacyEventPage(events: try store.events.events(after: Int64(after), limit: limit), lastSequence: try store.events.lastSequence())
        }
    }

    public let resources: ShoppingStore
    public var events: EventLog { resources.events }

    public init(database: ServiceDatabase, eventSink: (any EventSink)? = nil) {
        resources = ShoppingStore(database: database, events: EventLog(database: database, service: "shopping", sink: eventSink))
    }

    /// Opens (creating and migrating if needed) `<directory>/shopping.sqlite`.
    public init(dataDirectory: String, eventSink: (any EventSink)? = nil) throws {
        self.init(database: try Self.openDatabase(directory: dataDirectory), eventSink: eventSink)
    }

    public static func openDatabase(directory: String) throws -> ServiceDatabase {
        try ServiceDatabase(directory: directory, name: "shopping", migrations: ShoppingSchema.register)
    }
}

struct LegacyEventPage: Encodable, Sendable {
    let events: [CloudEvent]
    let lastSequence: Int64

    enum CodingKeys: String, CodingKey {
        case events
        case lastSequence = "last_sequence"
    }
}
