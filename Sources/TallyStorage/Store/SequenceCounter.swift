import TallyProtocol

/// A gap-free sequence kept in a table of one row (`id = 1`, `last_sequence`): a service's
/// events (`event_counter`, see `EventOutbox`) and the notifier's alerts (`alert_counter`).
///
/// Why a row and not an identity column: numbers are taken with `UPDATE ... RETURNING` inside the
/// transaction that uses them, so the row stays locked until that transaction ends. Numbers are
/// given out one transaction at a time, in commit order, and a transaction that rolls back gives
/// its numbers back with it; a reader can take a gap for "missed", never for "skipped".
public struct SequenceCounter: Sendable {
    public let table: String

    public static let events = SequenceCounter(table: "event_counter")

    public init(table: String) {
        self.table = table
    }

    /// Creates the table with its row, numbering on after `last` (a migration step).
    public func create(_ session: any SQLSession, after last: Int64) throws {
        try session.create(TableSchema(
            table, columns: [ColumnSchema("id", .integer, check: "id = 1"), ColumnSchema("last_sequence", .integer)],
            primaryKey: ["id"]))
        try session.execute("INSERT INTO \(raw: table) (id, last_sequence) VALUES (1, \(last))")
    }

    /// Takes the next `count` numbers in the caller's transaction and returns the first.
    public func take(_ count: Int, _ session: any SQLSession) throws -> Int64 {
        guard let last = try session.fetchValue(
            "UPDATE \(raw: table) SET last_sequence = last_sequence + \(count) WHERE id = 1 RETURNING last_sequence", as: Int64.self)
        else { throw StorageFailure(location: table, detail: "the \(table) row is missing") }
        return last - Int64(count) + 1
    }

    /// Sets the last number given out, for a transaction that counted on in memory from what it
    /// took (`EventNumbering`); the row is already this transaction's.
    public func set(last: Int64, _ session: any SQLSession) throws {
        try session.execute("UPDATE \(raw: table) SET last_sequence = \(last) WHERE id = 1")
    }

    /// The last number given out, 0 when none.
    public func last(_ session: any SQLSession) throws -> Int64 {
        try session.fetchValue("SELECT last_sequence FROM \(raw: table) WHERE id = 1", as: Int64.self) ?? 0
    }
}
