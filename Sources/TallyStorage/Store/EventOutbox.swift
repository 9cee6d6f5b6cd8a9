import Foundation
import TallyProtocol

/// A service's transactional outbox: the `event` table, where every change records its events in
/// its own transaction, numbered by a per-service sequence that has no gaps.
///
/// How the sequence stays gap-free with many writers (processes, hosts): numbers are taken from
/// the single row of `event_counter` with an `UPDATE ... RETURNING` inside the change's
/// transaction. That row is locked until the transaction ends, so writers take numbers one
/// transaction at a time, and a transaction that rolls back gives its numbers back with it.
/// Subscribers can therefore read a gap as "missed", never as "skipped". The changes of one
/// transaction share that update (`EventNumbering`).
enum EventOutbox {
    static let migrations = [
        Migration("event-outbox") { session in
            try session.create(TableSchema(
                "event",
                columns: [
                    // Kept as SQLite created it before the counter existed: explicit values are stored as given.
                    ColumnSchema("sequence", session.dialect == .sqlite ? .identity : .integer),
                    ColumnSchema("id", .text),
                    ColumnSchema("type", .text),
                    ColumnSchema("subject", .text, notNull: false),
                    ColumnSchema("time", .text),
                    ColumnSchema("data", .blob),
                ],
                primaryKey: session.dialect == .sqlite ? [] : ["sequence"],
                unique: [["id"]]))
        },
        Migration("event-counter") { session in
            let last = try session.fetchValue("SELECT COALESCE(MAX(sequence), 0) FROM event", as: Int64.self) ?? 0
            try SequenceCounter.events.create(session, after: last)
        },
        Migration("event-request-id") { session in
            try session.execute("ALTER TABLE event ADD COLUMN request_id TEXT")
        },
        // The W3C trace context of the span that recorded the event, so a replayed event (catch-up)
        // joins its request's trace as the live one does.
        Migration("event-traceparent") { session in
            try session.execute("ALTER TABLE event ADD COLUMN traceparent TEXT")
        },
    ]

    /// The longest request id kept with an event: an id is the client's to choose, and this is a
    /// trace, not a store for whatever a client sends.
    static let maximumRequestIDLength = 128

    /// Numbers `events` in the caller's transaction; returns them as CloudEvents, with the
    /// statements that store them (the caller runs those, with the change's other closing rows).
    static func append(
        _ events: [any DomainEvent], service: String, epoch: String, at now: Int64, requestID: String?,
        traceparent: String? = nil, _ session: any SQLSession
    ) throws -> (events: [CloudEvent], inserts: [SQL]) {
        guard !events.isEmpty else { return ([], []) }
        // Outside a numbered transaction, a numbering of its own: one update, as it always was.
        var sequence = try (EventNumbering.current ?? EventNumbering()).take(events.count, session) - 1
        let time = Timestamp.rfc3339(now)
        let requestID = requestID.flatMap { $0.isEmpty ? nil : String($0.prefix(Self.maximumRequestIDLength)) }
        // Only a well-formed one is kept: it is the client's, read off its envelope.
        let traceparent = traceparent.flatMap { TraceParent($0) == nil ? nil : $0 }
        var inserts: [SQL] = []
        inserts.reserveCapacity(events.count)
        let cloudEvents = try events.map { event in
            sequence += 1
            let payload = try TallyJSON.encode(event)
            let id = Self.randomID()
            inserts.append(
                """
                INSERT INTO event (sequence, id, type, subject, time, data, request_id, traceparent)
                VALUES (\(sequence), \(id), \(event.type), \(event.subject), \(time), \(payload), \(requestID), \(traceparent))
                """)
            return CloudEvent(
                id: id, source: "tally/\(service)", type: event.type, time: time, subject: event.subject,
                sequence: sequence, data: try JSONReader.parse(payload), requestID: requestID, epoch: epoch,
                traceparent: traceparent)
        }
        return (cloudEvents, inserts)
    }

    /// Makes the write transaction `session` has just begun the service's one writer until it
    /// ends, before it reads anything (`SQLSession.takeWritersTurn`): every change that records
    /// events updates the counter row, so a service's writers take turns anyway, whatever process
    /// or host they run in. Taken after a read, that turn made two worker processes of a service
    /// on PostgreSQL fail to serialize most of their overlapping transactions, and write less
    /// than one process did.
    static func takeWritersTurn(_ session: any SQLSession) throws {
        try session.takeWritersTurn(on: SequenceCounter.events.table)
    }

    /// A random (version 4) UUID, lowercased: an event's id. Not `UUID()`, which on Linux opens,
    /// reads and closes `/dev/urandom` for each one: three system calls per event inside the
    /// commit, where the system generator takes one or none. Written as hex here, not through
    /// `uuidString.lowercased()`, which was 1.6 % of a writing worker.
    static func randomID() -> String {
        var generator = SystemRandomNumberGenerator()
        var uuid: (UInt64, UInt64) = (generator.next(), generator.next())
        return withUnsafeMutableBytes(of: &uuid) { bytes in
            bytes[6] = bytes[6] & 0x0F | 0x40  // version 4: random
            bytes[8] = bytes[8] & 0x3F | 0x80  // the RFC 4122 variant
            return String(unsafeUninitializedCapacity: 36) { text in
                var count = 0
                for (index, byte) in bytes.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        text[count] = UInt8(ascii: "-")
                        count += 1
                    }
                    text[count] = hexDigit(byte >> 4)
                    text[count + 1] = hexDigit(byte & 0x0F)
                    count += 2
                }
                return count
            }
        }
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }

    /// Events after `sequence`, oldest first, at most `limit`.
    static func events(after sequence: Int64, limit: Int, service: String, epoch: String, _ session: any SQLSession) throws -> [CloudEvent] {
        try session.fetchAll(
            "SELECT sequence, id, type, subject, time, data, request_id, traceparent FROM event WHERE sequence > \(sequence) ORDER BY sequence LIMIT \(limit)"
        ).map { row in
            CloudEvent(
                id: try row["id"], source: "tally/\(service)", type: try row["type"], time: try row["time"],
                subject: try row["subject"], sequence: try row["sequence"],
                data: try JSONReader.parse(try row["data"] as Data), requestID: try row["request_id"], epoch: epoch,
                traceparent: try row["traceparent"])
        }
    }

    /// The highest sequence given out, 0 when none.
    static func lastSequence(_ session: any SQLSession) throws -> Int64 {
        try SequenceCounter.events.last(session)
    }
}
