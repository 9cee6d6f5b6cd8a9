import Foundation
import GRDB
import TallyProtocol

/// A service's transactional outbox: every state change records its event in the same SQLite
/// transaction (so there is never a change without its event, or an event without its change),
/// numbered by a per-service sequence shared by every worker process on the file. Events are
/// handed to the sink only after their transaction commits; a crash before the sink runs loses
/// the publish, never the event, which subscribers then fetch with `<service>.events`.
public struct EventLog: Sendable {
    public let database: ServiceDatabase
    public let service: String
    public let sink: (any EventSink)?

    public init(database: ServiceDatabase, service: String, sink: (any EventSink)?) {
        self.database = database
        self.service = service
        self.sink = sink
    }

    /// The outbox table; register it in the service's migrator.
    public static func registerMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("event-outbox") { db in
            // AUTOINCREMENT: sequences are never reused, even after the newest rows are deleted.
            try db.execute(
                sql: """
                    CREATE TABLE event (
                        sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                        id TEXT NOT NULL UNIQUE,
                        type TEXT NOT NULL,
                        subject TEXT,
                        time TEXT NOT NULL,
                        data BLOB NOT NULL
                    )
                    """)
        }
    }

    /// Records an event inside the caller's write transaction and returns it. It reaches the sink
    /// once that transaction commits, and never if it rolls back.
    @discardableResult
    public func append<Data: Encodable>(_ db: Database, type: String, subject: String?, data: Data) throws -> CloudEvent {
        let payload = try JSONEncoder.tally.encode(data)
        let id = UUID().uuidString.lowercased()
        let time = Timestamp.rfc3339(Timestamp.now())
        try db.execute(
            sql: "INSERT INTO event (id, type, subject, time, data) VALUES (?, ?, ?, ?, ?)",
            arguments: [id, type, subject, time, payload])
        let event = CloudEvent(
            id: id, source: "tally/\(service)", type: type, time: time, subject: subject,
            sequence: db.lastInsertedRowID, data: try JSONDecoder().decode(JSONValue.self, from: payload))
        if let sink {
            db.afterNextTransaction { _ in sink.publish([event]) }
        }
        return event
    }

    /// Events after `sequence`, oldest first, at most `limit`.
    public func events(after sequence: Int64, limit: Int) throws -> [CloudEvent] {
        try database.read { db in
            try Row.fetchAll(
                db, sql: "SELECT sequence, id, type, subject, time, data FROM event WHERE sequence > ? ORDER BY sequence LIMIT ?",
                arguments: [sequence, limit]
            ).map { row in
                CloudEvent(
                    id: row["id"], source: "tally/\(service)", type: row["type"], time: row["time"], subject: row["subject"],
                    sequence: row["sequence"], data: try JSONDecoder().decode(JSONValue.self, from: row["data"] as Foundation.Data))
            }
        }
    }

    /// The highest sequence stored, 0 when there is none.
    public func lastSequence() throws -> Int64 {
        try database.read { try Int64.fetchOne($0, sql: "SELECT COALESCE(MAX(sequence), 0) FROM event") ?? 0 }
    }
}
