/// Which history a service database's event sequence belongs to: its `epoch`, made when the
/// database is created and made anew when it is restored from a backup (`tally restore`), and
/// the sequence that history began after.
///
/// Why: a restored database numbers its events on from the backup's last sequence, so numbers a
/// subscriber (the notifier) has already handled come round again for new events. Every event
/// carries its database's epoch (`CloudEvent.epoch`) and `<service>.events` says where the epoch
/// began, so the notifier sees a history it has not followed, takes as handled only what the two
/// histories share (the sequences up to `beganAfter`, which the backup had), and catches up from
/// there. `tally migrate-data` copies the row as it is: the same data, the same history.
public struct EventEpoch: Sendable, Equatable {
    /// A random UUID.
    public let id: String
    /// The last sequence the database had when the epoch began: 0 for a new database, the
    /// backup's last sequence for a restored one. Events up to it are the history it came from.
    public let beganAfter: Int64

    static let migrations = [
        // One row. A database made before this step gets its epoch here, beginning after the
        // sequence it had: its events so far are the history subscribers already follow.
        Migration("event-epoch") { session in
            try session.create(TableSchema(
                "event_epoch",
                columns: [
                    ColumnSchema("id", .integer, check: "id = 1"), ColumnSchema("epoch", .text), ColumnSchema("began_after", .integer),
                ],
                primaryKey: ["id"]))
            try session.execute("""
                INSERT INTO event_epoch (id, epoch, began_after)
                SELECT 1, \(EventOutbox.randomID()), last_sequence FROM \(raw: SequenceCounter.events.table) WHERE id = 1
                """)
        }
    ]

    /// The database's epoch.
    static func current(_ session: any SQLSession) throws -> EventEpoch {
        guard let row = try session.fetchOne("SELECT epoch, began_after FROM event_epoch WHERE id = 1") else {
            throw StorageFailure(location: "event_epoch", detail: "the event_epoch row is missing")
        }
        return EventEpoch(id: try row["epoch"], beganAfter: try row["began_after"])
    }

    /// Gives a restored database an epoch of its own, beginning after its last event sequence;
    /// returns it. A backup made before epochs existed has no `event_epoch` table: the migration
    /// that makes it, when a worker first opens the database, makes a new epoch the same way.
    @discardableResult
    public static func begin(on engine: any StorageEngine) throws -> EventEpoch? {
        try engine.write { try begin(in: $0) }
    }

    /// `begin(on:)` in a transaction of the caller's: `SQLiteEngine.restore`'s, before any worker
    /// can open the restored file.
    @discardableResult
    public static func begin(in session: any SQLSession) throws -> EventEpoch? {
        guard try Migrator.tableExists("event_epoch", session) else { return nil }
        try session.execute("""
            UPDATE event_epoch SET epoch = \(EventOutbox.randomID()),
                began_after = (SELECT last_sequence FROM \(raw: SequenceCounter.events.table) WHERE id = 1)
            WHERE id = 1
            """)
        return try current(session)
    }
}
