import Foundation
import TallyClient
import TallyProtocol
import TallyStorage

/// The notifier's data (`notifier.sqlite` by default): how far each source has been handled
/// without a hole, which events past a hole have been handled, and every alert. One event is
/// handled in ONE transaction — recorded as handled, its source's progress advanced, its alerts
/// numbered and inserted — so a notifier that dies at any point either did all of it or none of
/// it, and a restart never alerts twice.
///
/// Alerts are numbered from the one row of `alert_counter`, taken with `UPDATE ... RETURNING` in
/// that transaction (as a service's outbox numbers its events): the row stays locked until the
/// transaction ends, so numbers are given out one transaction at a time and a rollback gives its
/// numbers back. Sequences therefore have no gaps and grow in commit order, also with several
/// notifiers on one database; `alerts.list`'s `last_sequence` and `tally watch` rely on both.
///
/// Why the engine and not a `ServiceStore`: the notifier records no domain events of its own and
/// takes no keyed changes; what it stores per event is its own exactly-once bookkeeping.
public final class NotifierStore: Sendable {
    public let engine: any StorageEngine
    private let rules: [any AlertRule]

    /// Opens the notifier's data on `engine` and brings its schema up to date.
    public init(engine: any StorageEngine, rules: [any AlertRule] = AlertRules.all) throws {
        self.engine = engine
        self.rules = rules
        try engine.migrate(NotifierSchema.migrations)
    }

    /// What handling one event did.
    public enum Outcome: Sendable, Equatable {
        /// Seen before (same event id): nothing was stored, nothing is to be published.
        case duplicate
        /// Recorded now, with the alerts it gave rise to (already stored and numbered).
        case handled([Alert])
        /// Of a history (`CloudEvent.epoch`) other than the one its source's progress counts in:
        /// not handled. A newer history is taken up by `switchEpoch`, after which the event is
        /// caught up on; an older one's events are not its source's any more.
        case otherEpoch
    }

    /// Handles `event` exactly once: a second call with the same event (its id, or its sequence at
    /// or below the watermark in its epoch) is a `duplicate`.
    public func handle(_ event: CloudEvent) throws -> Outcome {
        try handle([event])[0].get()
    }

    /// Handles `events` exactly once each, in order, in ONE transaction: each in a savepoint of
    /// its own, so one that cannot be stored (its result is the error) is undone alone and the
    /// others stand. If the transaction cannot commit, every result is that error and none of
    /// them was handled.
    ///
    /// Why together: a transaction per event was most of what the notifier spent at a thousand
    /// events a second; the events one wake-up of its inlet finds share one now.
    public func handle(_ events: [CloudEvent]) -> [Result<Outcome, any Error>] {
        let drafts = events.map { AlertRules.alerts(for: $0, rules: rules) }
        do {
            return try write { session in
                let now = Timestamp.now()
                return zip(events, drafts).map { event, drafts -> Result<Outcome, any Error> in
                    do {
                        return .success(try session.savepoint { try handle(event, drafts, at: now, session) })
                    } catch is OtherEpoch {
                        // Nothing of it was stored.
                        return .success(.otherEpoch)
                    } catch {
                        return .failure(error)
                    }
                }
            }
        } catch {
            return events.map { _ in .failure(error) }
        }
    }

    private func handle(_ event: CloudEvent, _ drafts: [AlertDraft], at now: Int64, _ session: any SQLSession) throws -> Outcome {
        guard try record(event, at: now, session) else { return .duplicate }
        return .handled(try store(drafts, of: event, at: now, session))
    }

    /// Records `event` as handled in its source's progress; false if it was handled before.
    ///
    /// Within one epoch a source's sequence names one event, so an event at or below the
    /// watermark is a duplicate by its sequence alone, and only events past a hole are kept by id
    /// (`handled_event`), for the watermark to walk over once the hole fills; it deletes them as
    /// it passes. The live case (the next event after the watermark, nothing seen beyond it) is
    /// one statement that stores nothing else.
    ///
    /// Notifiers sharing a database write one at a time (`write`): the second of two handling the
    /// same event waits for the first's commit and then finds it at or below the watermark.
    /// Writing the progress row first still holds its lock for the rest of the transaction,
    /// whatever engine runs it.
    ///
    /// An event with an `epoch` counts only in a row counting in that epoch; the row of a source
    /// whose progress counts in another throws `OtherEpoch` (a source's first event sets it).
    private func record(_ event: CloudEvent, at now: Int64, _ session: any SQLSession) throws -> Bool {
        let source = event.service
        let sequence = event.sequence
        let sameEpoch: SQL = event.epoch.map { epoch -> SQL in "AND epoch = \(epoch)" } ?? ""
        let movedOnto = try session.execute("""
            UPDATE source_progress SET last_sequence = \(sequence), last_seen_sequence = \(sequence)
            WHERE source = \(source) \(sameEpoch) AND last_sequence = \(sequence - 1) AND last_seen_sequence < \(sequence)
            """)
        if movedOnto == 1 { return true }

        guard let progress = try session.fetchOne("""
            UPDATE source_progress SET source = source WHERE source = \(source) \(sameEpoch) RETURNING last_sequence
            """)
        else {
            // The source's first event here, or progress in another epoch.
            let inserted = try session.execute(
                "INSERT INTO source_progress (source, epoch) VALUES (\(source), \(event.epoch)) ON CONFLICT (source) DO NOTHING")
            guard inserted == 1 else { throw OtherEpoch() }
            return try record(event, at: now, session)
        }
        let watermark: Int64 = try progress["last_sequence"]
        guard sequence > watermark else { return false }
        guard sequence == watermark + 1 else {
            // Past a hole: kept by id until the watermark walks over it.
            let recorded = try session.execute("""
                INSERT INTO handled_event (event_id, source, sequence, type, handled_at_ms)
                VALUES (\(event.id), \(source), \(sequence), \(event.type), \(timestamp: now))
                ON CONFLICT (event_id) DO NOTHING
                """)
            guard recorded == 1 else { return false }
            try session.execute("""
                UPDATE source_progress SET last_seen_sequence = \(sequence)
                WHERE source = \(source) AND last_seen_sequence < \(sequence)
                """)
            return true
        }
        // The next event, with events past a hole seen: walk over those handled.
        var moved = sequence
        while try session.exists("SELECT 1 FROM handled_event WHERE source = \(source) AND sequence = \(moved + 1)") {
            moved += 1
        }
        try session.execute("""
            UPDATE source_progress SET last_sequence = \(moved),
                last_seen_sequence = CASE WHEN last_seen_sequence < \(moved) THEN \(moved) ELSE last_seen_sequence END
            WHERE source = \(source)
            """)
        if moved > sequence {
            try session.execute("DELETE FROM handled_event WHERE source = \(source) AND sequence <= \(moved)")
        }
        return true
    }

    /// Numbers and stores the alerts of `event`.
    private func store(_ drafts: [AlertDraft], of event: CloudEvent, at now: Int64, _ session: any SQLSession) throws -> [Alert] {
        guard !drafts.isEmpty else { return [] }
        var sequence = try NotifierSchema.alertCounter.take(drafts.count, session) - 1
        let traceID = event.traceparent.flatMap(TraceParent.init)?.traceID
        return try drafts.map { draft in
            sequence += 1
            let dataText = String(decoding: try TallyJSON.encode(draft.data), as: UTF8.self)
            try session.execute("""
                INSERT INTO alert (sequence, kind, owner, text, time, source, event_id, data_json, created_at_ms, trace_id)
                VALUES (\(sequence), \(draft.kind), \(draft.owner), \(draft.text), \(event.time), \(event.source), \(event.id),
                    \(dataText), \(timestamp: now), \(traceID))
                """)
            return Alert(
                sequence: sequence, kind: draft.kind, owner: draft.owner, text: draft.text, time: event.time,
                source: event.source, eventID: event.id, data: draft.data, traceID: traceID)
        }
    }

    /// Makes `source`'s progress count in `epoch`, a history of its database that began after
    /// sequence `beganAfter` (`<service>.events` says both), unless it does already; returns the
    /// watermark in it.
    ///
    /// Only what the two histories share stays handled: the watermark goes back to `beganAfter`
    /// if it was beyond (events past it were another history's, their numbers now another
    /// event's), and those events' ids are forgotten, so the walk of the watermark never passes
    /// over them. Events up to `beganAfter` are the same events (a restored backup keeps their
    /// ids), so what was handled of them stays handled. Taken as the first epoch of a source
    /// whose progress counted without one, as after an upgrade: its database's first epoch began
    /// after the events it had, which are the ones the notifier followed.
    public func switchEpoch(of source: String, to epoch: String, beganAfter: Int64) throws -> Int64 {
        try write { session in
            try session.execute("INSERT INTO source_progress (source) VALUES (\(source)) ON CONFLICT (source) DO NOTHING")
            // Writing first takes the row's lock: notifiers sharing the database switch it one at a time.
            guard let row = try session.fetchOne("""
                UPDATE source_progress SET source = source WHERE source = \(source) RETURNING last_sequence, epoch
                """)
            else { throw StorageFailure(location: engine.location, detail: "the source_progress row of \(source) is missing") }
            let watermark: Int64 = try row["last_sequence"]
            let current: String? = try row["epoch"]
            if current == epoch { return watermark }
            let kept = min(watermark, beganAfter)
            try session.execute("""
                UPDATE source_progress SET epoch = \(epoch), last_sequence = \(kept), last_seen_sequence = \(kept)
                WHERE source = \(source)
                """)
            try session.execute("DELETE FROM handled_event WHERE source = \(source) AND sequence > \(beganAfter)")
            return kept
        }
    }

    /// The history `source`'s progress counts in; nil before an event that carries one.
    public func epoch(of source: String) throws -> String? {
        try engine.read { session in
            guard let row = try session.fetchOne("SELECT epoch FROM source_progress WHERE source = \(source)") else { return nil }
            return try row["epoch"] as String?
        }
    }

    /// The highest sequence of `source` up to which every event has been handled (0: none).
    public func watermark(of source: String) throws -> Int64 {
        try engine.read { session in
            try session.fetchValue("SELECT last_sequence FROM source_progress WHERE source = \(source)", as: Int64.self) ?? 0
        }
    }

    /// Records that `source` has events up to `sequence` (its feed said so; the column is
    /// `last_seen_sequence`, which handling an event also moves), so that
    /// `alerts.status` shows how far behind the notifier is while it catches up, and after, if
    /// some of them cannot be handled. Never moves the number back.
    public func sourceHas(_ source: String, upTo sequence: Int64) throws {
        try write { session in
            try session.execute("INSERT INTO source_progress (source) VALUES (\(source)) ON CONFLICT (source) DO NOTHING")
            try session.execute("""
                UPDATE source_progress SET last_seen_sequence = \(sequence)
                WHERE source = \(source) AND last_seen_sequence < \(sequence)
                """)
        }
    }

    /// `alerts.status`: every source's progress and the last alert, read in one snapshot.
    public func status() throws -> NotifierStatus {
        try engine.read { session in
            let rows = try session.fetchAll("SELECT source, last_sequence, last_seen_sequence FROM source_progress ORDER BY source")
            let sources = try rows.map { row in
                NotifierStatus.Source(
                    service: try row["source"], handledThrough: try row["last_sequence"], newestKnown: try row["last_seen_sequence"])
            }
            return NotifierStatus(sources: sources, lastAlertSequence: try Self.lastAlertSequence(session))
        }
    }

    /// Every source the notifier has handled or heard of an event of.
    public func knownSources() throws -> [String] {
        try engine.read { session in try session.fetchValues("SELECT source FROM source_progress ORDER BY source", as: String.self) }
    }

    /// The highest alert sequence given out (0: none).
    public func lastAlertSequence() throws -> Int64 {
        try engine.read { session in try Self.lastAlertSequence(session) }
    }

    private static func lastAlertSequence(_ session: any SQLSession) throws -> Int64 {
        try NotifierSchema.alertCounter.last(session)
    }

    /// Runs `body` in a write transaction of the engine that is the only notifier writer of the
    /// database until it ends (`SQLSession.takeWritersTurn`). Notifiers sharing a database update
    /// the same rows (each event's source progress, the alert counter), so they take turns anyway;
    /// taken before the first read, the turn spares them failing to serialize and running again
    /// after a pause.
    private func write<T>(_ body: (any SQLSession) throws -> T) throws -> T {
        try engine.write { session in
            try session.takeWritersTurn(on: "source_progress")
            return try body(session)
        }
    }

    /// Alerts after `after`, oldest first, optionally of one kind and one owner; at most `limit`.
    public func alerts(after: Int64, kind: String? = nil, owner: String? = nil, limit: Int) throws -> AlertPage {
        var conditions: [SQL] = ["sequence > \(after)"]
        if let kind { conditions.append("kind = \(kind)") }
        if let owner { conditions.append("owner = \(owner)") }
        return try engine.read { session in
            let rows = try session.fetchAll("""
                SELECT sequence, kind, owner, text, time, source, event_id, data_json, trace_id FROM alert
                WHERE \(SQL.joined(conditions, separator: " AND ")) ORDER BY sequence LIMIT \(limit + 1)
                """)
            let alerts = try rows.prefix(limit).map { row in
                Alert(
                    sequence: try row["sequence"], kind: try row["kind"], owner: try row["owner"], text: try row["text"],
                    time: try row["time"], source: try row["source"], eventID: try row["event_id"],
                    data: try JSONReader.parse(try row["data_json"] as Data), traceID: try row["trace_id"])
            }
            return AlertPage(alerts: alerts, lastSequence: try Self.lastAlertSequence(session), more: rows.count > limit)
        }
    }
}

/// Thrown inside an event's savepoint when its source's progress counts in another epoch, so
/// the savepoint undoes it; reported as `NotifierStore.Outcome.otherEpoch`.
struct OtherEpoch: Error {}
