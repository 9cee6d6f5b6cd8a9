import GRDB
import TallyProtocol
import TallyStorage

/// The shopping database as the commands use it: reads, and idempotent write transactions that
/// record their events in the same transaction.
public struct ShoppingStore: Sendable {
    let database: ServiceDatabase
    let writes: IdempotentWrites
    let events: EventLog

    init(database: ServiceDatabase, events: EventLog) {
        self.database = database
        self.writes = IdempotentWrites(database: database)
        self.events = events
    }

    /// Runs a mutation in one write transaction. With an `idempotency_key`, a retry of the same
    /// request gets the first run's result back instead of running again (and records no events
    /// again); keys are scoped by command and owner.
    func mutate<Result: Encodable & Sendable>(
        _ args: Arguments, _ context: RequestContext, owner: String, _ change: (Database) throws -> Result
    ) throws -> StoredResult {
        let request: JSONValue = ["args": .object(args.values), "locale": context.locale.map(JSONValue.string) ?? .null]
        return StoredResult(try writes.perform(
            key: context.idempotencyKey, scope: "\(context.command):\(owner)", request: request, change))
    }

    /// Records one domain event in the transaction `db` belongs to.
    func record(_ db: Database, _ event: ShoppingEvent, subject: String) throws {
        _ = try events.append(db, type: event.type, subject: subject, data: event)
    }
}
