import TallyProtocol
import TallyStorage
import TallyWorker

/// The accounts service: each owner's budget accounts (name, currency, starting balance, one
/// default), and the word list of the screens that edit them.
///
/// Every command runs in one transaction of the service's store, which every worker process of
/// the service shares.
public struct AccountsService: ServiceHandler {
    public static let table = CommandTable<AccountStore>("accounts") { table in
        table.change("accounts.create", "Add a budget account for an owner.", CreateCommand.run)
        table.query("accounts.list", "An owner's accounts, a page at a time.", ListCommand.run)
        table.query("accounts.get", "One of an owner's accounts.", GetCommand.run)
        table.change("accounts.update", "Change an account's name, currency, starting balance or default flag.", UpdateCommand.run)
        table.change("accounts.delete", "Remove one of an owner's accounts.", DeleteCommand.run)
        table.change("accounts.set_default", "Make one account the owner's default.", SetDefaultCommand.run)
        table.query("accounts.strings", "The add-account screens' word list in English, Japanese or Chinese.", StringsCommand.run)
        table.eventFeed(\.store)
    }

    public let resources: AccountStore

    public init(store: AccountStore) {
        resources = store
    }
}
