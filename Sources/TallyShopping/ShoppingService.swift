import TallyProtocol
import TallyStorage
import TallyWorker

/// The shopping service: each person's template lists ("Weekly", "Monthly") and shopping lists,
/// their items, quantities and prices, the list totals, shopping memory, price comparison,
/// auto-removal of purchased items and the owner's preferences for those three.
///
/// Every command is the signed-in caller's (`access: .user`): the lists and preferences it reads
/// and changes are the caller's own, kept under their user id (the handler's `caller`); another person's
/// list is as absent as a deleted one.
///
/// Every change runs in one transaction of the service's store that also records its domain
/// events (`shopping.events`); every worker process of the service shares the store.
public struct ShoppingService: StoreBackedService {
    public static let table = CommandTable<ShoppingStore>("shopping") { table in
        table.change("shopping.create_list", access: .user, "A new template or shopping list, empty or copied from a template, with shopping memory.", CreateListCommand.run)
        table.query("shopping.get_list", access: .user, "Open a list: its items and total, purchased items hidden by auto-removal.", GetListCommand.run)
        table.query("shopping.lists", access: .user, "Your lists with their totals, a page at a time.", ListsCommand.run)
        table.change("shopping.rename_list", access: .user, "Give a list a new name.", RenameListCommand.run)
        table.change("shopping.delete_list", access: .user, "Remove a list and its items.", DeleteListCommand.run)
        table.change("shopping.add_item", access: .user, "Add an item to a list.", AddItemCommand.run)
        table.change("shopping.update_item", access: .user, "Change an item's name, unit or quantities.", UpdateItemCommand.run)
        table.change("shopping.remove_item", access: .user, "Take an item off a list.", RemoveItemCommand.run)
        table.change("shopping.mark_purchased", access: .user, "Mark an item bought, with its price and quantity, compared with the last price paid.", MarkPurchasedCommand.run)
        table.change("shopping.mark_unpurchased", access: .user, "Mark an item not bought after all.", MarkUnpurchasedCommand.run)
        table.change("shopping.set_price", access: .user, "Set an item's unit price, compared with the last price paid.", SetPriceCommand.run)
        table.query("shopping.get_preferences", access: .user, "Your shopping memory, price comparison and auto-removal switches.", GetPreferencesCommand.run)
        table.change("shopping.set_preferences", access: .user, "Turn shopping memory, price comparison or auto-removal on or off.", SetPreferencesCommand.run)
        table.query("shopping.price_history", access: .user, "What you paid for an item, newest first.", PriceHistoryCommand.run)
        table.eventFeed(\.store)
    }

    public let resources: ShoppingStore

    public init(store: ShoppingStore) {
        resources = store
    }
}
