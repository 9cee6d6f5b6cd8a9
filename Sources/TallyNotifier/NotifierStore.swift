import Foundation
import GRDB
import TallyProtocol
import TallyStorage

/// `notifier.sqlite`: which events have been handled, how far each source has been handled
/// without a hole, and every alert. One event is handled in ONE transaction — recorded as
/// handled, its source's progress advanced, its alerts inserted — so a notifier that dies at any
/// point either did all of it or none of it, and a restart never alerts twice.
public final class NotifierStore: Sendable {
    public let database: ServiceDatabase
    private let rules: [any AlertRule]

    public init(database: ServiceDatabase, rules: [any AlertRule] = AlertRules.all) {
        self.database = database
        self.rules = rules
    }

    /// Opens (creating and migrating if needed) `<directory>/notifier.sqlite`.
    public convenience init(directory: String, rules: [any AlertRule] = AlertRules.all) throws {
        self.init(database: try Self.openDatabase(directory: directory), rules: rules)
    }

    public static func openDatabase(directory: String) throws -> ServiceDatabase {
        try ServiceDatabase(directory: directory, name: "notifier", migrations: NotifierSchema.register)
    }

    /// What handling one event did.
    public enum Outcome: Sendable, Equatable {
        /// Seen before (same event id): nothing was stored, nothing is to be published.
        case duplicate
        /// Recorded now, with the alerts it gave rise to (already stored and numbered).
        case handled([Alert])
    }

    /// Handles `event` exactly once: a second call with the same event id is a `duplicate`.
    public func handle(_ event: CloudEvent) throws -> Outcome {
        let drafts = AlertRules.alerts(for: event, rules: rules)
        return try database.write { db in
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM handled_event WHERE event_id = ?", arguments: [event.id]) == true {
                return .duplicate
            }
            let source = event.service
            try db.execute(
                sql: "INSERT INTO handled_event (event_id, source, sequence, type, handled_at_ms) VALUES (?, ?, ?, ?, ?)",
                arguments: [event.id, source, event.sequence, event.type, Self.nowMilliseconds()])
            try db.execute(
                sql: "INSERT INTO source_progress (source, last_sequence) VALUES (?, 0) ON CONFLICT(source) DO NOTHING",
                arguments: [source])
            // Advance the watermark over every sequence now handled without a hole.
            var watermark = try Int64.fetchOne(
                db, sql: "SELECT last_sequence FROM source_progress WHERE source = ?", arguments: [source]) ?? 0
            while try Bool.fetchOne(
                db, sql: "SELECT 1 FROM handled_event WHERE source = ? AND sequence = ? LIMIT 1",
                arguments: [source, watermark + 1]) == true
            {
                watermark += 1
            }
            try db.execute(
                sql: "UPDATE source_progress SET last_sequence = ?, last_seen_sequence = MAX(last_seen_sequence, ?) WHERE source = ?",
                arguments: [watermark, event.sequence, source])
            var alerts: [Alert] = []
            for draft in drafts {
                let dataText = String(decoding: try JSONEncoder.tally.encode(draft.data), as: UTF8.self)
                try db.execute(
                    sql: """
                        INSERT INTO alert (kind, owner, text, time, source, event_id, data_json, created_at_ms)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [draft.kind, draft.owner, draft.text, event.time, event.source, event.id, dataText, Self.nowMilliseconds()])
                alerts.append(Alert(
                    sequence: db.lastInsertedRowID, kind: draft.kind, owner: draft.owner, text: draft.text, time: event.time,
                    source: event.source, eventID: event.id, data: draft.data))
            }
            return .handled(alerts)
        }
    }

    /// The highest sequence of `source` up to which every event has been handled (0: none).
    public func watermark(of source: String) throws -> Int64 {
        try database.read { db in
            try Int64.fetchOne(db, sql: "SELECT last_sequence FROM source_progress WHERE source = ?", arguments: [source]) ?? 0
        }
    }

    /// Every source the notifier has handled an event of.
    public func knownSources() throws -> [String] {
        try database.read { db in try String.fetchAll(db, sql: "SELECT source FROM source_progress ORDER BY source") }
    }

    /// Whether an event id has been handled.
    public func hasHandled(eventID: String) throws -> Bool {
        try database.read { db in
            try Bool.fetchOne(db, sql: "SELECT 1 FROM handled_event WHERE event_id = ?", arguments: [eventID]) == true
        }
    }

    /// The highest alert sequence stored (0: none).
    public func lastAlertSequence() throws -> Int64 {
        try database.read { db in try Self.lastAlertSequence(db) }
    }

    static func lastAlertSequence(_ db: Database) throws -> Int64 {
        // sqlite_sequence remembers the highest AUTOINCREMENT value even if rows were removed.
        try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'alert'") ?? 0
    }

    /// Alerts after `after`, oldest first, optionally of one kind and one owner; at most `limit`.
    public func alerts(after: Int64, kind: String? = nil, owner: String? = nil, limit: Int) throws -> AlertPage {
        try database.read { db in
            var sql = "SELECT sequence, kind, owner, text, time, source, event_id, data_json FROM alert WHERE sequence > ?"
            var arguments: StatementArguments = [after]
            if let kind {
                sql += " AND kind = ?"
                arguments += [kind]
            }
            if let owner {
                sql += " AND owner = ?"
                arguments += [owner]
            }
            sql += " ORDER BY sequence LIMIT ?"
            arguments += [limit + 1]
            let rows = try Row.fetchAll(db, sql: sql, arguments: arguments)
            let alerts = try rows.prefix(limit).map { row in
                let dataText: String = row["data_json"]
                return Alert(
                    sequence: row["sequence"], kind: row["kind"], owner: row["owner"], text: row["text"], time: row["time"],
                    source: row["source"], eventID: row["event_id"],
                    data: try JSONDecoder().decode(JSONValue.self, from: Data(dataText.utf8)))
            }
            return AlertPage(alerts: alerts, lastSequence: try Self.lastAlertSequence(db), more: rows.count > limit)
        }
    }

    static func nowMilliseconds() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }
}

/// One page of `alerts.list`.
public struct AlertPage: Codable, Sendable, Equatable {
    public var alerts: [Alert]
    /// The highest alert sequence stored, of any kind or owner, when the page was read: a client
    /// that has everything up to here (matching its filter) has missed nothing.
    public var lastSequence: Int64
    /// Whether more alerts match after the last one of this page; ask again with `after` set to its sequence.
    public var more: Bool

    public init(alerts: [Alert], lastSequence: Int64, more: Bool) {
        self.alerts = alerts
        self.lastSequence = lastSequence
        self.more = more
    }

    enum CodingKeys: String, CodingKey {
        case alerts
        case lastSequence = "last_sequence"
        case more
    }
}

/// The tables of `notifier.sqlite`. Migrations are append-only.
enum NotifierSchema {
    static func register(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("notifier-v1") { db in
            // Every event handled, by id: what de-duplicates a re-sent or caught-up event.
            try db.create(table: "handled_event", options: .withoutRowID) { table in
                table.column("event_id", .text).notNull().primaryKey()
                table.column("source", .text).notNull()
                table.column("sequence", .integer).notNull()
                table.column("type", .text).notNull()
                table.column("handled_at_ms", .integer).notNull()
            }
            try db.create(index: "handled_event_source_sequence", on: "handled_event", columns: ["source", "sequence"])
            // Per source (service): every sequence up to last_sequence is handled; the highest
            // seen may be above it while a hole waits to be caught up.
            try db.create(table: "source_progress", options: .withoutRowID) { table in
                table.column("source", .text).notNull().primaryKey()
                table.column("last_sequence", .integer).notNull().defaults(to: 0)
                table.column("last_seen_sequence", .integer).notNull().defaults(to: 0)
            }
            // AUTOINCREMENT: an alert's sequence is never reused, and grows in commit order.
            try db.create(table: "alert") { table in
                table.autoIncrementedPrimaryKey("sequence")
                table.column("kind", .text).notNull()
                table.column("owner", .text).notNull()
                table.column("text", .text).notNull()
                table.column("time", .text).notNull()
                table.column("source", .text).notNull()
                table.column("event_id", .text).notNull()
                table.column("data_json", .text).notNull()
                table.column("created_at_ms", .integer).notNull()
            }
            try db.create(index: "alert_owner", on: "alert", columns: ["owner", "sequence"])
            try db.create(index: "alert_kind", on: "alert", columns: ["kind", "sequence"])
        }
    }
}
