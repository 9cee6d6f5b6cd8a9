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
    public let serviceName = "shopping"
    public let commands: CommandTable
    public let events: EventLog

    public init(database: ServiceDatabase, eventSink: (any EventSink)? = nil) {
        let events = EventLog(database: database, service: "shopping", sink: eventSink)
        let store = ShoppingStore(database: database, events: events)
        var commands = CommandTable()
        commands.register("shopping.create_list") { args, context in try CreateListCommand.run(args, context, store) }
        commands.register("shopping.get_list") { args, context in try GetListCommand.run(args, context, store) }
        commands.register("shopping.lists") { args, context in try ListsCommand.run(args, context, store) }
        commands.register("shopping.rename_list") { args, context in try RenameListCommand.run(args, context, store) }
        commands.register("shopping.delete_list") { args, context in try DeleteListCommand.run(args, context, store) }
        commands.register("shopping.add_item") { args, context in try AddItemCommand.run(args, context, store) }
        commands.register("shopping.update_item") { args, context in try UpdateItemCommand.run(args, context, store) }
        commands.register("shopping.remove_item") { args, context in try RemoveItemCommand.run(args, context, store) }
        commands.register("shopping.mark_purchased") { args, context in try MarkPurchasedCommand.run(args, context, store) }
        commands.register("shopping.mark_unpurchased") { args, context in try MarkUnpurchasedCommand.run(args, context, store) }
        commands.register("shopping.set_price") { args, context in try SetPriceCommand.run(args, context, store) }
        commands.register("shopping.get_preferences") { args, context in try GetPreferencesCommand.run(args, context, store) }
        commands.register("shopping.set_preferences") { args, context in try SetPreferencesCommand.run(args, context, store) }
        commands.register("shopping.price_history") { args, context in try PriceHistoryCommand.run(args, context, store) }
        commands.registerEventFeed(events)
        self.commands = commands
        self.events = events
    }

    /// Opens (creating and migrating if needed) `<directory>/shopping.sqlite`.
    public init(dataDirectory: String, eventSink: (any EventSink)? = nil) throws {
        self.init(database: try Self.openDatabase(directory: dataDirectory), eventSink: eventSink)
    }

    public static func openDatabase(directory: String) throws -> ServiceDatabase {
        try ServiceDatabase(directory: directory, name: "shopping", migrations: ShoppingSchema.register)
    }
}
