import TallyProtocol
import TallyStorage
import TallyWorker

/// The accounts service: each person's budget accounts (name, currency, starting balance, one
/// default), and the word list of the screens that edit them.
///
/// Every command is the signed-in caller's (`access: .user`): the accounts it reads and changes
/// are the caller's own, kept under their user id (the handler's `caller`); another person's account is
/// as absent as a deleted one.
///
/// Every command runs in one transaction of the service's store, which every worker process of
/// the service shares.
public struct AccountsService: StoreBackedService {
    public static let table = CommandTable<AccountStore>("accounts") { table in
        table.change("accounts.create", access: .user, "Add a budget account of yours.", CreateCommand.run)
        table.query("accounts.list", access: .user, "Your accounts, a page at a time.", ListCommand.run)
        table.query("accounts.get", access: .user, "One of your accounts.", GetCommand.run)
        table.change("accounts.update", access: .user, "Change an account's name, currency, starting balance or default flag.", UpdateCommand.run)
        table.change("accounts.delete", access: .user, "Remove one of your accounts.", DeleteCommand.run)
        table.change("accounts.set_default", access: .user, "Make one of your accounts your default.", SetDefaultCommand.run)
        table.query("accounts.strings", access: .user, "The add-account screens' word list in English, Japanese or Chinese.", StringsCommand.run)
        table.eventFeed(\.store)
    }

    public let resources: AccountStore

    public init(store: AccountStore) {
        resources = store
    }
}
