import TallyProtocol
import TallyStorage

/// An agreed trade, made real: checked against the roster as it is now, then written into it.
enum Settlement {
    /// One occurrence changing hands.
    struct Move: Sendable {
        let occurrence: Occurrence
        /// Who works it before (nil: open) and after.
        let from: String?
        let to: String
    }

    /// What `trade` would move, read from the roster as it is now. Refuses
    /// (`failed_precondition`) when it can no longer happen: the giver no longer works what they
    /// give, an open shift has been filled, the receiver has left, or someone would work two
    /// shifts at once. Run when a change is agreed and again when a manager approves it.
    static func check(_ trade: Trade, team: Team, _ session: any SQLSession, people: PeopleDirectory) throws -> [Move] {
        guard let receiver = trade.toUserID else {
            throw StoredDataFailure("trade \(trade.id) is agreed but nobody receives its shift")
        }
        guard try Member.active(session, teamID: team.id, userID: receiver) != nil else {
            throw TallyError(.failedPrecondition, "\(people.name(receiver)) is no longer a member of \(team.label)")
        }
        let given = try occurrence(trade.occurrence, team: team, session)
        guard given.assignee == trade.fromUserID else {
            let now = given.assignee.map { "\(people.name($0)) works it now" } ?? "it is open now"
            let was = trade.fromUserID.map { "\(people.name($0))'s" } ?? "open"
            throw TallyError(.failedPrecondition, "\(given.label) is no longer \(was): \(now)")
        }
        var moves = [Move(occurrence: given, from: trade.fromUserID, to: receiver)]
        if let otherKey = trade.other, let giver = trade.fromUserID {
            let other = try occurrence(otherKey, team: team, session)
            guard other.assignee == receiver else {
                throw TallyError(
                    .failedPrecondition,
                    "\(other.label) is no longer \(people.name(receiver))'s: \(other.assignee.map(people.name) ?? "nobody") works it now")
            }
            moves.append(Move(occurrence: other, from: receiver, to: giver))
        }
        let givenUp = Dictionary(grouping: moves.compactMap { move in move.from.map { ($0, move.occurrence.key) } }, by: \.0)
            .mapValues { Set($0.map(\.1)) }
        for move in moves {
            try OverlapRule.check(session, userID: move.to, gets: move.occurrence, givingUp: givenUp[move.to] ?? [], people: people)
        }
        return moves
    }

    /// Writes an approved `trade` into the roster: who works each occurrence now, and the points
    /// it earns (and takes back). Each occurrence moves only if it is still the giver's, so two
    /// changes that both passed `check` cannot both move it.
    static func apply(_ trade: Trade, team: Team, at now: Int64, _ session: any SQLSession, people: PeopleDirectory) throws {
        for move in try check(trade, team: team, session, people: people) {
            let key = move.occurrence.key
            let stillTheirs: SQL = move.from.map { "assignment.assignee_user_id = \($0)" } ?? "assignment.assignee_user_id IS NULL"
            let moved = try session.execute("""
                INSERT INTO assignment (shift_id, occurrence_date, assignee_user_id, trade_id)
                VALUES (\(key.shiftID), \(key.date.description), \(move.to), \(trade.id))
                ON CONFLICT (shift_id, occurrence_date) DO UPDATE SET assignee_user_id = excluded.assignee_user_id, trade_id = excluded.trade_id
                WHERE \(stillTheirs)
                """)
            guard moved == 1 else {
                throw TallyError(.failedPrecondition, "\(move.occurrence.label) changed hands meanwhile; look at the schedule again")
            }
            if let giver = move.from {
                try Points.revoke(session, teamID: team.id, userID: giver, occurrence: key, trade: trade, at: now)
            }
        }
        if let receiver = trade.toUserID, let award = Points.award(for: trade) {
            try Points.record(
                session, teamID: team.id, userID: receiver, trade: trade, occurrence: trade.occurrence, points: award.points,
                reason: award.reason, at: now)
        }
    }

    private static func occurrence(_ key: OccurrenceKey, team: Team, _ session: any SQLSession) throws -> Occurrence {
        guard let shift = try Shift.find(session, id: key.shiftID), shift.teamID == team.id else {
            throw TallyError(.failedPrecondition, "shift \(key.shiftID) is no longer on the schedule of \(team.label)")
        }
        guard shift.occurs(on: key.date) else {
            throw TallyError(.failedPrecondition, "\(key) is no longer on the schedule of \(team.label)")
        }
        return try ScheduleReader.occurrence(session, shift: shift, team: team, date: key.date, field: "trade_id")
    }
}
