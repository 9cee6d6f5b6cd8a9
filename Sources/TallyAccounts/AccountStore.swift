import TallyProtocol
import TallyStorage

/// The accounts service's data as its commands use it: the service's store, and the word list.
public struct AccountStore: ServiceData {
    public let store: ServiceStore

    /// Opens the accounts data on `engine` and brings its schema up to date.
    public init(engine: any StorageEngine, eventSink: (any EventSink)? = nil, transactionObserver: (any TransactionObserver)? = nil) throws {
        store = try ServiceStore(service: "accounts", engine: engine, migrations: AccountsSchema.migrations, sink: eventSink,
            observer: transactionObserver)
    }

    /// One text of the word list, in `language`.
    func text(_ key: String, in language: Language) throws -> String {
        try store.read { session in
            try session.fetchValue("SELECT text FROM localized_string WHERE language = \(language.rawValue) AND key = \(key)", as: String.self)
        } ?? key
    }

    /// The owner's keyed change of the one account `args` names, by `id`, its only member (as
    /// `accounts.delete` and `accounts.set_default` take it), found in the change's own transaction.
    func changeAccount<Result: Encodable & Sendable>(
        _ context: RequestContext, _ args: Arguments, owner: String, _ body: (inout Change, inout AccountRecord) throws -> Result
    ) throws -> StoredResult {
        try args.allowOnly(["id"])
        let id = try args.id("id", of: "one of your accounts")
        return try change(context, args, owner: owner) { change in
            var account = try AccountRecord.find(change.session, owner: owner, id: id)
            return try body(&change, &account)
        }
    }

    /// The `invalid_argument` for a blank name or starting balance: the word list's message in the
    /// request's language, naming the field.
    func emptyNameOrBalance(field: String, locale: String?) throws -> TallyError {
        .invalidArgument(try text(WordList.nameOrBalanceEmpty, in: Language(locale: locale)), field: field)
    }
}
