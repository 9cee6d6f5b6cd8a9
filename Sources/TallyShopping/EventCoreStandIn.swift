// TEMPORARY: a stand-in for the event core the lead is adding to `main` (TallyProtocol.CloudEvent,
// TallyStorage.EventLog/EventSink, CommandTable.registerEventFeed), with the API of its spec, so
// this service builds and its tests run before that lands. Delete this file when merging main.
import Foundation
import GRDB
import TallyProtocol
import TallyStorage
import TallyWorker

public struct CloudEvent: Codable, Sendable, Equatable {
    public var specversion = "1.0"
    public var id: String
    public var source: String
    public var type: String
    public var time: String
    public var subject: String?
    public var datacontenttype = "application/json"
    public var sequence: Int64
    public var data: JSONValue
}

public protocol EventSink: Sendable {
    func publish(_ events: [CloudEvent])
}

public struct EventLog: Sendable {
    public let database: ServiceDatabase
    public let service: String
    public let sink: (any EventSink)?

    public init(database: ServiceDatabase, service: String, sink: (any EventSink)?) {
        self.database = database
        self.service = service
        self.sink = sink
    }

    public static func registerMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("events-standin") { db in
            try db.create(table: "event") { table in
                table.autoIncrementedPrimaryKey("sequence")
                table.column("json", .blob).notNull()
            }
        }
    }

    public func append(_ db: Database, type: String, subject: String?, data: some Encodable) throws -> CloudEvent {
        let value = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder.tally.encode(data))
        let next = (try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'event'") ?? 0) + 1
        let event = CloudEvent(
            id: UUID().uuidString.lowercased(), source: "tally/\(service)", type: type,
            time: Timestamp.rfc3339(Timestamp.now()), subject: subject, sequence: next, data: value)
        try db.execute(sql: "INSERT INTO event (sequence, json) VALUES (?, ?)", arguments: [next, try JSONEncoder.tally.encode(event)])
        return event
    }

    public func events(after: Int64, limit: Int) throws -> [CloudEvent] {
        try database.read { db in
            try Data.fetchAll(db, sql: "SELECT json FROM event WHERE sequence > ? ORDER BY sequence LIMIT ?", arguments: [after, limit])
                .map { try JSONDecoder().decode(CloudEvent.self, from: $0) }
        }
    }

    public func lastSequence() throws -> Int64 {
        try database.read { db in try Int64.fetchOne(db, sql: "SELECT MAX(sequence) FROM event") ?? 0 }
    }
}

struct EventPage: Encodable, Sendable {
    let events: [CloudEvent]
    let lastSequence: Int64
    enum CodingKeys: String, CodingKey {
        case events
        case lastSequence = "last_sequence"
    }
}

extension CommandTable {
    mutating func registerEventFeed(_ log: EventLog) {
        register("\(log.service).events") { args, _ in
            try args.allowOnly(["after", "limit"])
            let after = try args.optionalInteger("after", in: 0...Int(Int64.max)) ?? 0
            let limit = try args.optionalInteger("limit", in: 1...1000) ?? 100
            return EventPage(events: try log.events(after: Int64(after), limit: limit), lastSequence: try log.lastSequence())
        }
    }
}
