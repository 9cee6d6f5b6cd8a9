import TallyProtocol
import TallyStorage

/// Turns the stored schedule (shifts, the per-day assignments approved trades wrote, open trades)
/// into occurrences: what `roster.schedule`, the marketplace and the overlap rule all read.
enum ScheduleReader {
    /// Every occurrence of `teams`' shifts on the days of `dates` (each team's own calendar
    /// days), in order of start.
    static func occurrences(_ session: any SQLSession, teams: [Team], dates: ClosedRange<LocalDate>) throws -> [Occurrence] {
        let byID = Dictionary(uniqueKeysWithValues: teams.map { ($0.id, $0) })
        let shifts = try Shift.occurring(session, teamIDs: teams.map(\.id), from: dates.lowerBound, to: dates.upperBound)
        let days = shifts.flatMap { shift in shift.dates(from: dates.lowerBound, through: dates.upperBound).map { (shift, $0) } }
        return try assemble(session, days, teams: byID, dates: dates)
    }

    /// The occurrence of `shift` on `date`; `not_found` on `field` when it does not occur then.
    static func occurrence(_ session: any SQLSession, shift: Shift, team: Team, date: LocalDate, field: String) throws -> Occurrence {
        guard shift.occurs(on: date) else {
            let when =
                shift.repeats == .once
                ? "only on \(shift.startsOn)"
                : "on \(shift.weekday.name)s from \(shift.startsOn)\(shift.endsOn.map { " until \($0)" } ?? "")"
            throw TallyError(.notFound, "shift \(shift.id) does not occur on \(date) (a \(date.weekday.name)); it occurs \(when)", field: field)
        }
        return try assemble(session, [(shift, date)], teams: [team.id: team], dates: date...date)[0]
    }

    /// The occurrences that any of `users` works (by their current assignments, in every team
    /// they are in) and that overlap the time from `start` to `end`.
    static func worked(by users: Set<String>, overlapping start: Int64, _ end: Int64, _ session: any SQLSession) throws -> [Occurrence] {
        guard !users.isEmpty else { return [] }
        let teamIDs = try session.fetchValues(
            "SELECT DISTINCT team_id FROM member WHERE user_id IN (\(list: users.sorted())) AND removed_at IS NULL ORDER BY team_id",
            as: Int64.self)
        var found: [Occurrence] = []
        for team in try Team.all(session, ids: teamIDs) {
            // A shift may start the day before and run up to a day: look a day either side.
            let days = team.timeZone.date(at: start).adding(days: -1)...team.timeZone.date(at: end).adding(days: 1)
            found += try occurrences(session, teams: [team], dates: days).filter { occurrence in
                occurrence.assignee.map(users.contains) ?? false && occurrence.slot.startsAt < end && start < occurrence.slot.endsAt
            }
        }
        return found
    }

    private static func assemble(
        _ session: any SQLSession, _ days: [(Shift, LocalDate)], teams: [Int64: Team], dates: ClosedRange<LocalDate>
    ) throws -> [Occurrence] {
        guard !days.isEmpty else { return [] }
        let shiftIDs = Array(Set(days.map { $0.0.id })).sorted()
        let from = dates.lowerBound.description
        let to = dates.upperBound.description

        // Days whose assignee an approved trade (or a leaver) changed; a null assignee is open.
        var assigned: [OccurrenceKey: String?] = [:]
        for row in try session.fetchAll("""
            SELECT shift_id, occurrence_date, assignee_user_id FROM assignment
            WHERE shift_id IN (\(list: shiftIDs)) AND occurrence_date BETWEEN \(from) AND \(to)
            """)
        {
            assigned[try key(row)] = .some(try row["assignee_user_id"])
        }

        // Open trades, but for those whose shift has started: they are expired, whether or not a
        // change has written that down yet (see `TradeTransitions.expireStarted`).
        var open: [OccurrenceKey: OpenTrade] = [:]
        for row in try session.fetchAll("""
            SELECT c.shift_id, c.occurrence_date, t.id, t.kind, t.state, t.from_user_id, t.to_user_id
            FROM trade_claim c JOIN trade t ON t.id = c.trade_id
            WHERE c.shift_id IN (\(list: shiftIDs)) AND c.occurrence_date BETWEEN \(from) AND \(to)
                AND t.starts_at > \(timestamp: Timestamp.now())
            """)
        {
            let id: Int64 = try row["id"]
            guard let kind = TradeKind(rawValue: try row["kind"]), let state = TradeState(rawValue: try row["state"]) else {
                throw StoredDataFailure("trade \(id) has a kind or state this service does not know")
            }
            open[try key(row)] = OpenTrade(id: id, kind: kind, state: state, fromUserID: try row["from_user_id"], toUserID: try row["to_user_id"])
        }

        return try days.map { shift, date in
            guard let team = teams[shift.teamID] else {
                throw StoredDataFailure("shift \(shift.id) belongs to team \(shift.teamID), which was not loaded")
            }
            let slot = shift.slot(on: date, in: team.timeZone)
            let assignee = assigned[slot.key] ?? shift.assignee
            return Occurrence(slot: slot, shift: shift, team: team, assignee: assignee, openTrade: open[slot.key])
        }
        .sorted { ($0.slot.startsAt, $0.team.id, $0.shift.id) < ($1.slot.startsAt, $1.team.id, $1.shift.id) }
    }

    private static func key(_ row: SQLRow) throws -> OccurrenceKey {
        let text: String = try row["occurrence_date"]
        guard let date = LocalDate(text) else { throw StoredDataFailure("an occurrence date reads \(text)") }
        return OccurrenceKey(shiftID: try row["shift_id"], date: date)
    }
}
