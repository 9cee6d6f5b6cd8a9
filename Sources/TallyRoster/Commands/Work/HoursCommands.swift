import TallyProtocol
import TallyStorage

/// `roster.record_hours`: the one who worked an occurrence records how long they actually worked.
///
/// Hours are minutes, whole and exact. They may be recorded once the shift has started (not for
/// the future), up to the occurrence's real length plus the team's margin (overtime happens;
/// `hours_margin_minutes`, 60 unless the team says otherwise). Recording again replaces.
enum RecordHoursCommand {
    static let mostMinutes = TimeOfDay.minutesPerDay + Team.hoursMargins.upperBound

    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: RosterStore) throws -> StoredResult {
        try args.allowOnly(["shift_id", "date", "minutes", "for_user_id"])
        let shiftID = try args.id("shift_id", of: "a shift of one of your teams")
        let date = try args.date("date")
        let minutes = try args.integer("minutes", in: 0...mostMinutes)
        return try store.change(context, args, owner: caller.userID) { change in
            let session = change.session
            let (shift, access) = try ShiftAccess.member(session, shiftID: shiftID, caller: caller)
            let team = access.team
            let worker = try access.subject(args, session, to: "record hours")
            let people = try Member.names(session, teamIDs: [team.id])
            let occurrence = try ScheduleReader.occurrence(session, shift: shift, team: team, date: date, field: args.field("date"))
            try worker.mustBe(occurrence.assignee, "the one who works \(occurrence.label)", to: "record hours on it", people: people)
            guard occurrence.slot.startsAt <= change.now else {
                throw TallyError(
                    .failedPrecondition,
                    "\(occurrence.label) starts at \(team.timeZone.rfc3339(occurrence.slot.startsAt)); hours can be recorded once it has started, not for the future",
                    field: args.field("date"))
            }
            let allowed = occurrence.slot.minutes + team.hoursMarginMinutes
            guard minutes <= allowed else {
                throw TallyError.invalidArgument(
                    "minutes is \(minutes), more than \(occurrence.label) allows: its \(occurrence.slot.minutes) minutes plus the team's margin of \(team.hoursMarginMinutes)",
                    field: args.field("minutes"))
            }
            let previous = try session.fetchValue(
                "SELECT minutes FROM hours_record WHERE shift_id = \(shift.id) AND occurrence_date = \(date.description)", as: Int.self)
            try session.execute("""
                INSERT INTO hours_record (shift_id, occurrence_date, team_id, user_id, minutes, scheduled_minutes, starts_at, recorded_by, recorded_at)
                VALUES (\(shift.id), \(date.description), \(team.id), \(worker.userID), \(minutes), \(occurrence.slot.minutes),
                    \(timestamp: occurrence.slot.startsAt), \(caller.userID), \(timestamp: change.now))
                ON CONFLICT (shift_id, occurrence_date) DO UPDATE SET
                    user_id = excluded.user_id, minutes = excluded.minutes, scheduled_minutes = excluded.scheduled_minutes,
                    starts_at = excluded.starts_at, recorded_by = excluded.recorded_by, recorded_at = excluded.recorded_at
                """)
            let record = HoursRecordResult(
                shift: occurrence.slotResult(), worker: worker.person, minutes: minutes, recordedBy: people.person(caller.userID),
                recordedAt: Timestamp.rfc3339(change.now))
            change.record(RosterEvent.hoursRecorded(HoursEvent(
                team: team.ref, record: record, previousMinutes: previous, by: caller.userID)))
            return record
        }
    }
}

/// `roster.hours`: hours worked in a period, per person, with the records behind the totals.
/// A manager sees everyone's (or one person's, with `user_id`); an employee sees their own.
enum HoursCommand {
    static let longestRange = 366

    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: RosterStore) throws -> HoursResult {
        try args.allowOnly(["team_id", "from", "to", "user_id"])
        let teamID = try args.id("team_id", of: "one of your teams")
        let dates = try args.dateRange(longest: longestRange)
        let asked = try args.optionalUserID("user_id")
        return try store.read { session in
            let access = try TeamAccess.member(session, teamID: teamID, caller: caller)
            let team = access.team
            if !access.isManager, let asked, asked != caller.userID {
                throw TallyError(
                    .permissionDenied, "only a manager of \(team.label) may see other people's hours; leave out user_id to see your own",
                    field: args.field("user_id"))
            }
            let person = access.isManager ? asked : caller.userID
            let people = try Member.names(session, teamIDs: [team.id])
            let whose: SQL = person.map { "AND user_id = \($0)" } ?? ""
            let rows = try session.fetchAll("""
                SELECT shift_id, occurrence_date, user_id, minutes, recorded_by, recorded_at FROM hours_record
                WHERE team_id = \(team.id) AND occurrence_date BETWEEN \(dates.lowerBound.description) AND \(dates.upperBound.description) \(whose)
                ORDER BY starts_at, shift_id
                """)
            var records: [HoursRecordResult] = []
            for row in rows {
                guard let shift = try Shift.find(session, id: try row["shift_id"]), let date = LocalDate(try row["occurrence_date"] as String) else {
                    throw StoredDataFailure("hours of team \(team.id) are recorded on a shift or date that is missing")
                }
                records.append(HoursRecordResult(
                    shift: SlotResult(shift.slot(on: date, in: team.timeZone), shift: shift, team: team),
                    worker: people.person(try row["user_id"] as String), minutes: try row["minutes"],
                    recordedBy: people.person(try row["recorded_by"] as String), recordedAt: Timestamp.rfc3339(try row["recorded_at"])))
            }
            let totals = Dictionary(grouping: records, by: \.worker.userID).map { userID, own in
                HoursTotalResult(person: people.person(userID), minutes: own.map(\.minutes).reduce(0, +), shifts: own.count)
            }
            .sorted { ($0.person.displayName, $0.person.userID) < ($1.person.displayName, $1.person.userID) }
            return HoursResult(
                teamID: team.id, from: dates.lowerBound.description, to: dates.upperBound.description, people: totals,
                totalMinutes: totals.map(\.minutes).reduce(0, +), records: records)
        }
    }
}

/// Hours worked on one occurrence.
struct HoursRecordResult: Encodable, Sendable {
    /// The occurrence, as it is on the schedule.
    let shift: SlotResult
    let worker: PersonResult
    let minutes: Int
    let recordedBy: PersonResult
    let recordedAt: String
}

/// The person's fields and their totals, in one object.
struct HoursTotalResult: Encodable, Sendable {
    @Inlined var person: PersonResult
    let minutes: Int
    let shifts: Int
}

struct HoursResult: Encodable, Sendable {
    let teamID: Int64
    let from: String
    let to: String
    /// Per person, by name.
    let people: [HoursTotalResult]
    let totalMinutes: Int
    /// The records behind the totals, in order of start.
    let records: [HoursRecordResult]
}
