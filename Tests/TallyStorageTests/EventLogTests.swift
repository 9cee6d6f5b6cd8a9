import Foundation
import GRDB
import TallyProtocol
import TallyStorage
import Testing

@Suite struct EventLogTests {
    /// Collects what the log hands over after commit.
    final class Collector: EventSink, @unchecked Sendable {
        private let lock = NSLock()
        private var events: [CloudEvent] = []
        func publish(_ events: [CloudEvent]) { lock.withLock { self.events += events } }
        var published: [CloudEvent] { lock.withLock { events } }
    }

    private func log(sink: Collector?) throws -> EventLog {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tally-events-\(UUID().uuidString.prefix(8))")
        let database = try ServiceDatabase(directory: directory.path, name: "ledger") { migrator in
            migrator.registerMigration("ledger") { db in try db.create(table: "entry") { $0.autoIncrementedPrimaryKey("id") } }
            EventLog.registerMigration(&migrator)
        }
        return EventLog(database: database, service: "ledger", sink: sink)
    }

    private struct Posted: Encodable { let amount: String }

    @Test func eventsCommitWithTheirChangeAndAreNumberedWithoutGaps() throws {
        let sink = Collector()
        let log = try log(sink: sink)
        for amount in ["1.00", "2.00", "3.00"] {
            try log.database.write { db in
                try db.execute(sql: "INSERT INTO entry DEFAULT VALUES")
                try log.append(db, type: "ledger.posted", subject: "ann", data: Posted(amount: amount))
            }
        }
        let stored = try log.events(after: 0, limit: 10)
        #expect(stored.map(\.sequence) == [1, 2, 3])
        #expect(stored.map(\.data) == [["amount": "1.00"], ["amount": "2.00"], ["amount": "3.00"]])
        #expect(stored.allSatisfy { $0.source == "tally/ledger" && $0.type == "ledger.posted" && $0.specversion == "1.0" })
        #expect(Set(stored.map(\.id)).count == 3)
        #expect(sink.published == stored, "each event reaches the sink once, after its commit")
        #expect(try log.events(after: 2, limit: 10).map(\.sequence) == [3])
        #expect(try log.lastSequence() == 3)
    }

    @Test func aRolledBackChangeRecordsAndPublishesNothing() throws {
        let sink = Collector()
        let log = try log(sink: sink)
        #expect(throws: TallyError.self) {
            try log.database.write { db in
                try db.execute(sql: "INSERT INTO entry DEFAULT VALUES")
                try log.append(db, type: "ledger.posted", subject: nil, data: Posted(amount: "1.00"))
                throw TallyError.invalidArgument("changed my mind")
            }
        }
        #expect(try log.events(after: 0, limit: 10).isEmpty)
        #expect(sink.published.isEmpty)
        #expect(try log.lastSequence() == 0)
    }
}
