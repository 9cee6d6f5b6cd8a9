import TallyProtocol
import TallyStorage

/// The accounts service's data as its commands use it: the service's store, and the word list.
public struct AccountStore: Sendable {
    public let store: ServiceStore

    /// Opens the accounts data on `engine` and brings its schema up to date.
    public init(engine: any StorageEngine, eventSink: (any EventSink)? = nil, transactionObserver: (any TransactionObserver)? = nil) throws {
        store = try ServiceStore(service: "accounts", engine: engine, migrations: AccountsSchema.migrations, sink: eventSink,
            observer: transactionObserver)
    }

    /// Runs a change of `owner`'s accounts, recording its event (the account as the change left
    /// it) in the same transaction; see `ServiceStore.change`.
    func change(
        _ args: Arguments, _ context: RequestContext, owner: String, _ body: (any SQLSession, Int64) throws -> AccountRecord
    ) throws -> StoredResult {
        try store.change(ChangeRequest(context, args, owner: owner)) { change in
            let account = try body(change.session, change.now).result()
            change.record(AccountEvent(command: context.command, account: account))
            return account
        }
    }

    /// One text of the word list, in `language`.
    func text(_ key: String, in language: Language) throws -> String {
        try store.read { session in
            try session.fetchValue("SELECT text FROM localized_string WHERE language = \(language.rawValue) AND key = \(key)", as: String.self)
        } ?? key
    }

    /// The `invalid_argument` for a blank name or starting balance: the word list's message in the
    /// request's language, naming the field.
    func emptyNameOrBalance(field: String, locale: String?) throws -> TallyError {
        .invalidArgument(try text(WordList.nameOrBalanceEmpty, in: Language(locale: locale)), field: field)
    }
}

/// What happened to an account; the event's data is the account as the change left it.
struct AccountEvent: DomainEvent {
    /// The event type each command records.
    static let types = [
        "accounts.create": "accounts.account_created", "accounts.update": "accounts.account_updated",
        "accounts.delete": "accounts.account_deleted", "accounts.set_default": "accounts.default_changed",
    ]

    let type: String
    let account: AccountResult

    init(command: String, account: AccountResult) {
        type = Self.types[command] ?? command
        self.account = account
    }

    var subject: String? { account.owner }

    func encode(to encoder: Encoder) throws { try account.encode(to: encoder) }
}
