import TallyProtocol
import TallyStorage

/// One row of `trade`: an offer, a volunteer for an open shift, or a swap, and where it stands.
struct Trade: Sendable {
    let id: Int64
    let teamID: Int64
    let kind: TradeKind
    var state: TradeState
    /// The occurrence given (offer, swap) or wanted (volunteer).
    let occurrence: OccurrenceKey
    /// A swap's other occurrence: what the giver gets back.
    let other: OccurrenceKey?
    /// Who gives `occurrence` away; nil for an open shift.
    let fromUserID: String?
    /// Who gets it: the taker, the volunteer, the colleague asked to swap.
    var toUserID: String?
    /// The earliest start among its occurrences.
    let startsAt: Int64
    let note: String?
    let createdBy: String
    let createdAt: Int64
    var updatedAt: Int64
    var claimedAt: Int64?

    static let noteLength = 280
    static let columns: SQL = """
        id, team_id, kind, state, shift_id, occurrence_date, with_shift_id, with_date, from_user_id, to_user_id, starts_at, note,
        created_by, created_at, updated_at, claimed_at
        """

    init(row: SQLRow) throws {
        id = try row["id"]
        guard let kind = TradeKind(rawValue: try row["kind"]), let state = TradeState(rawValue: try row["state"]),
            let date = LocalDate(try row["occurrence_date"] as String)
        else { throw StoredDataFailure("trade \(id) has a kind, state or date this service cannot read") }
        self.kind = kind
        self.state = state
        teamID = try row["team_id"]
        occurrence = OccurrenceKey(shiftID: try row["shift_id"], date: date)
        let otherShift: Int64? = try row["with_shift_id"]
        let otherDate: String? = try row["with_date"]
        if let otherShift, let otherDate {
            guard let date = LocalDate(otherDate) else { throw StoredDataFailure("trade \(id) has the date \(otherDate)") }
            other = OccurrenceKey(shiftID: otherShift, date: date)
        } else {
            other = nil
        }
        fromUserID = try row["from_user_id"]
        toUserID = try row["to_user_id"]
        startsAt = try row["starts_at"]
        note = try row["note"]
        createdBy = try row["created_by"]
        createdAt = try row["created_at"]
        updatedAt = try row["updated_at"]
        claimedAt = try row["claimed_at"]
    }

    /// Stores a new trade in `state`.
    static func insert(
        _ session: any SQLSession, teamID: Int64, kind: TradeKind, state: TradeState, occurrence: Slot, other: Slot?,
        fromUserID: String?, toUserID: String?, note: String?, createdBy: String, at now: Int64
    ) throws -> Trade {
        let startsAt = min(occurrence.startsAt, other?.startsAt ?? occurrence.startsAt)
        let claimedAt: Int64? = kind == .wanted ? now : nil
        guard let row = try session.fetchOne("""
            INSERT INTO trade (team_id, kind, state, shift_id, occurrence_date, with_shift_id, with_date, from_user_id, to_user_id,
                starts_at, note, created_by, created_at, updated_at, claimed_at)
            VALUES (\(teamID), \(kind.rawValue), \(state.rawValue), \(occurrence.shiftID), \(occurrence.date.description),
                \(other?.shiftID), \(other?.date.description), \(fromUserID), \(toUserID), \(timestamp: startsAt), \(note),
                \(createdBy), \(timestamp: now), \(timestamp: now), \(timestamp: claimedAt))
            RETURNING \(columns)
            """)
        else { throw StorageFailure(location: "roster", detail: "INSERT INTO trade ... RETURNING gave no row") }
        return try Trade(row: row)
    }

    static func find(_ session: any SQLSession, id: Int64) throws -> Trade? {
        try session.fetchOne("SELECT \(columns) FROM trade WHERE id = \(id)").map(Trade.init(row:))
    }

    /// The team's trades in `states`, oldest first.
    static func inTeam(_ session: any SQLSession, teamID: Int64, states: [TradeState]) throws -> [Trade] {
        try session.fetchAll("""
            SELECT \(columns) FROM trade WHERE team_id = \(teamID) AND state IN (\(list: states.map(\.rawValue))) ORDER BY id
            """).map(Trade.init(row:))
    }

    /// Its state as of `now`: an open trade whose first shift has started is expired, whether or
    /// not a change has written that down yet (see `TradeTransitions.expireStarted`).
    func state(at now: Int64) -> TradeState {
        state.isOpen && startsAt <= now ? .expired : state
    }

    /// The occurrences it is about: one, or two for a swap.
    var occurrences: [OccurrenceKey] { [occurrence] + (other.map { [$0] } ?? []) }

    /// Who started it: the giver of an offer or a swap, the volunteer for an open shift.
    var initiator: String? { kind == .wanted ? toUserID : fromUserID }

    /// Everyone it concerns: giver and receiver, whoever of them there is.
    var people: [String] { [fromUserID, toUserID].compactMap { $0 } }

    func result(_ session: any SQLSession, team: Team, people: PeopleDirectory) throws -> TradeResult {
        func slot(_ key: OccurrenceKey) throws -> SlotResult {
            guard let shift = try Shift.find(session, id: key.shiftID) else {
                throw StoredDataFailure("trade \(id) is about shift \(key.shiftID), which is missing")
            }
            return SlotResult(shift.slot(on: key.date, in: team.timeZone), shift: shift, team: team)
        }
        return TradeResult(
            id: id, teamID: teamID, kind: kind.rawValue, state: state(at: Timestamp.now()).rawValue, shift: try slot(occurrence),
            withShift: try other.map(slot), from: people.person(fromUserID), to: people.person(toUserID), note: note,
            createdAt: Timestamp.rfc3339(createdAt), updatedAt: Timestamp.rfc3339(updatedAt))
    }
}

/// A trade on the wire, and in the data of its events.
struct TradeResult: Codable, Sendable {
    let id: Int64
    let teamID: Int64
    let kind: String
    let state: String
    /// The shift given away, or wanted.
    let shift: SlotResult
    /// A swap's other shift: what the giver gets back.
    let withShift: SlotResult?
    /// Who gives `shift` away; absent for an open shift.
    let from: PersonResult?
    /// Who gets it; absent while an offer waits for a taker.
    let to: PersonResult?
    let note: String?
    let createdAt: String
    let updatedAt: String
}
