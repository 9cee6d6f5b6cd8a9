import TallyProtocol
import TallyStorage
import TallyWorker

/// The accounts service: each owner's budget accounts (name, currency, starting balance, one
/// default), kept in `accounts.sqlite`, and the word list of the screens that edit them.
///
/// Every command runs in one transaction against the service's database, which every worker
/// process of the service on the host shares (WAL, IMMEDIATE write transactions).
public struct AccountsService: ServiceHandler {
    public let serviceName = "accounts"
    public let commands: CommandTable

    /// - Parameter eventSink: where committed events go (the worker's publisher); nil keeps them
    ///   in the outbox only, for `accounts.events`.
    public init(database: ServiceDatabase, eventSink: (any EventSink)? = nil) {
        let store = AccountStore(database: database, eventSink: eventSink)
        var commands = CommandTable()
        commands.register("accounts.create") { args, context in try CreateCommand.run(args, context, store) }
        commands.register("accounts.list") { args, context in try ListCommand.run(args, context, store) }
        commands.register("accounts.get") { args, context in try GetCommand.run(args, context, store) }
        commands.register("accounts.update") { args, context in try UpdateCommand.run(args, context, store) }
        commands.register("accounts.delete") { args, context in try DeleteCommand.run(args, context, store) }
        commands.register("accounts.set_default") { args, context in try SetDefaultCommand.run(args, context, store) }
        commands.register("accounts.strings") { args, context in try StringsCommand.run(args, context, store) }
        commands.registerEventFeed(store.events)
        self.commands = commands
    }

    /// Opens (creating and migrating if needed) `<directory>/accounts.sqlite`.
    public init(dataDirectory: String, eventSink: (any EventSink)? = nil) throws {
        self.init(database: try Self.openDatabase(directory: dataDirectory), eventSink: eventSink)
    }

    public static func openDatabase(directory: String) throws -> ServiceDatabase {
        try ServiceDatabase(directory: directory, name: "accounts", migrations: AccountsSchema.register)
    }
}
