import GRDB
import TallyProtocol
import TallyStorage

/// The accounts database as the commands use it: reads, idempotent write transactions and the
/// word list.
struct AccountStore: Sendable {
    let database: ServiceDatabase
    let writes: IdempotentWrites
    let events: EventLog

    init(database: ServiceDatabase, eventSink: (any EventSink)?) {
        self.database = database
        self.writes = IdempotentWrites(database: database)
        self.events = EventLog(database: database, service: "accounts", sink: eventSink)
    }

    /// The event each change records, by command.
    static let eventTypes = [
        "accounts.create": "accounts.account_created", "accounts.update": "accounts.account_updated",
        "accounts.delete": "accounts.account_deleted", "accounts.set_default": "accounts.default_changed",
    ]

    /// Runs a mutation in one write transaction, recording its event (the account as the change
    /// left it) in the same transaction. With an `idempotency_key`, a retry of the same request
    /// gets the first run's result back instead of running again; keys are scoped by command and owner.
    func mutate<Result: Encodable & Sendable>(
        _ args: Arguments, _ context: RequestContext, owner: String, _ change: (Database) throws -> Result
    ) throws -> StoredResult {
        // The locale is part of the request: it picks the currency when args leave it out.
        let request: JSONValue = ["args": .object(args.values), "locale": context.locale.map(JSONValue.string) ?? .null]
        let type = Self.eventTypes[context.command] ?? context.command
        return StoredResult(try writes.perform(
            key: context.idempotencyKey, scope: "\(context.command):\(owner)", request: request
        ) { db in
            let result = try change(db)
            try events.append(db, type: type, subject: owner, data: result)
            return result
        })
    }

    /// One text of the word list, in `language`.
    func text(_ key: String, in language: Language) throws -> String {
        try database.read { db in
            try String.fetchOne(db, sql: "SELECT text FROM localized_string WHERE language = ? AND key = ?", arguments: [language.rawValue, key])
        } ?? key
    }

    /// The `invalid_argument` for a blank name or starting balance: the word list's message in the
    /// request's language, naming the field.
    func emptyNameOrBalance(field: String, locale: String?) throws -> TallyError {
        .invalidArgument(try text(WordList.nameOrBalanceEmpty, in: Language(locale: locale)), field: field)
    }
}

/// A mutation's result: fresh from the transaction, or as stored for its idempotency key.
struct StoredResult: Encodable, Sendable {
    let value: any Encodable & Sendable

    init(_ value: any Encodable & Sendable) { self.value = value }

    func encode(to encoder: Encoder) throws { try value.encode(to: encoder) }
}
