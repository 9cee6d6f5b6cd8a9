import TallyStorage

/// The tables of the notifier's database (`notifier.sqlite`). Steps are append-only: a shipped
/// step never changes, so a later change is a new step.
enum NotifierSchema {
    /// The alerts' numbers, gap-free in commit order with several notifiers on one database.
    static let alertCounter = SequenceCounter(table: "alert_counter")

    static let migrations: [Migration] = [
        Migration("notifier-v1") { session in
            // Every event handled, by id: what de-duplicated a re-sent or caught-up event. Since
            // notifier-handled-past-holes-only, only those past a hole in their source's sequence.
            try session.create(TableSchema(
                "handled_event",
                columns: [
                    ColumnSchema("event_id", .text),
                    ColumnSchema("source", .text),
                    ColumnSchema("sequence", .integer),
                    ColumnSchema("type", .text),
                    ColumnSchema("handled_at_ms", .timestamp),
                ],
                primaryKey: ["event_id"], withoutRowID: true))
            try session.createIndex("handled_event_source_sequence", on: "handled_event", columns: ["source", "sequence"])
            // Per source (service): every sequence up to last_sequence is handled; the highest
            // seen may be above it while a hole waits to be caught up.
            try session.create(TableSchema(
                "source_progress",
                columns: [
                    ColumnSchema("source", .text),
                    ColumnSchema("last_sequence", .integer, default: "0"),
                    ColumnSchema("last_seen_sequence", .integer, default: "0"),
                ],
                primaryKey: ["source"], withoutRowID: true))
            try session.create(TableSchema(
                "alert",
                columns: [
                    // Numbered from alert_counter (see NotifierStore). In SQLite the column keeps the
                    // AUTOINCREMENT it first shipped with, which numbered alerts before the counter;
                    // explicit values are stored as given.
                    ColumnSchema("sequence", session.dialect == .sqlite ? .identity : .integer),
                    ColumnSchema("kind", .text),
                    ColumnSchema("owner", .text),
                    ColumnSchema("text", .text),
                    ColumnSchema("time", .text),
                    ColumnSchema("source", .text),
                    ColumnSchema("event_id", .text),
                    ColumnSchema("data_json", .text),
                    ColumnSchema("created_at_ms", .timestamp),
                ],
                primaryKey: session.dialect == .sqlite ? [] : ["sequence"]))
            try session.createIndex("alert_owner", on: "alert", columns: ["owner", "sequence"])
            try session.createIndex("alert_kind", on: "alert", columns: ["kind", "sequence"])
        },
        // The alert numbers, taken with UPDATE ... RETURNING in the transaction that stores the
        // alerts: gap-free and in commit order even with several notifiers on one database.
        Migration("notifier-alert-counter") { session in
            var last = try session.fetchValue("SELECT MAX(sequence) FROM alert", as: Int64.self) ?? 0
            if session.dialect == .sqlite {
                // Until this step, AUTOINCREMENT numbered alerts; it remembers the highest number it
                // gave out even if that alert was deleted since, and no number is given twice.
                last = max(last, try session.fetchValue("SELECT seq FROM sqlite_sequence WHERE name = 'alert'", as: Int64.self) ?? 0)
            }
            try alertCounter.create(session, after: last)
        },
        // Old handled events were deleted by age, until notifier-handled-past-holes-only.
        Migration("notifier-handled-event-age") { session in
            try session.createIndex("handled_event_handled_at", on: "handled_event", columns: ["handled_at_ms"])
        },
        // The history (CloudEvent.epoch) of its source that a row's progress counts in; null
        // until the first event that carries one (see NotifierStore.switchEpoch).
        Migration("notifier-source-epoch") { session in
            try session.execute("ALTER TABLE source_progress ADD COLUMN epoch TEXT")
        },
        // The trace of the request whose event caused an alert (Alert.traceID), null when it was not traced.
        Migration("notifier-alert-trace-id") { session in
            try session.execute("ALTER TABLE alert ADD COLUMN trace_id TEXT")
        },
        // Since this step an event is a duplicate by its sequence once the watermark has passed it,
        // so only events past a hole are kept by id, until the watermark walks over them
        // (NotifierStore.record); what is kept below the watermark and the age index go.
        Migration("notifier-handled-past-holes-only") { session in
            try session.execute("DROP INDEX handled_event_handled_at")
            try session.execute("""
                DELETE FROM handled_event
                WHERE sequence <= (SELECT p.last_sequence FROM source_progress p WHERE p.source = handled_event.source)
                """)
        },
    ]
}
