import TallyProtocol
import TallyStorage

/// One row of `shift`: a shift of a team's schedule, every week or once.
///
/// Its start is a wall-clock time of the team's zone and its length is wall-clock minutes, the
/// way a schedule on the wall reads ("Saturday 09:00–17:00"): see `slot(on:in:)` for how an
/// occurrence becomes two instants across daylight-saving changes.
struct Shift: Sendable {
    enum Repeats: String, Sendable {
        case weekly, once
    }

    let id: Int64
    let teamID: Int64
    let repeats: Repeats
    let weekday: Weekday
    var start: TimeOfDay
    var durationMinutes: Int
    var position: String
    /// Who works it unless an occurrence says otherwise; nil for an open shift.
    var assignee: String?
    let startsOn: LocalDate
    /// The last day it may occur; nil while a weekly shift goes on.
    var endsOn: LocalDate?
    let createdAt: Int64
    var updatedAt: Int64

    static let positionLength = 40
    static let durations = 1...TimeOfDay.minutesPerDay

    static let columns: SQL = """
        id, team_id, repeats, weekday, start_minute, duration_minutes, position, assignee_user_id, starts_on, ends_on, created_at, updated_at
        """

    init(row: SQLRow) throws {
        id = try row["id"]
        teamID = try row["team_id"]
        let repeatsText: String = try row["repeats"]
        let startsOnText: String = try row["starts_on"]
        let endsOnText: String? = try row["ends_on"]
        guard let repeats = Repeats(rawValue: repeatsText), let weekday = Weekday(rawValue: try row["weekday"]),
            let start = TimeOfDay(minutes: try row["start_minute"]), let startsOn = LocalDate(startsOnText),
            endsOnText == nil || LocalDate(endsOnText ?? "") != nil
        else { throw StoredDataFailure("shift \(id) has a repeat, weekday, start or date this service cannot read") }
        self.repeats = repeats
        self.weekday = weekday
        self.start = start
        self.startsOn = startsOn
        endsOn = endsOnText.flatMap(LocalDate.init)
        durationMinutes = try row["duration_minutes"]
        position = try row["position"]
        assignee = try row["assignee_user_id"]
        createdAt = try row["created_at"]
        updatedAt = try row["updated_at"]
    }

    static func insert(
        _ session: any SQLSession, teamID: Int64, repeats: Repeats, weekday: Weekday, start: TimeOfDay, durationMinutes: Int,
        position: String, assignee: String?, startsOn: LocalDate, endsOn: LocalDate?, at now: Int64
    ) throws -> Shift {
        guard let row = try session.fetchOne("""
            INSERT INTO shift (team_id, repeats, weekday, start_minute, duration_minutes, position, assignee_user_id, starts_on, ends_on, created_at, updated_at)
            VALUES (\(teamID), \(repeats.rawValue), \(weekday.rawValue), \(start.minutes), \(durationMinutes), \(position), \(assignee),
                \(startsOn.description), \(endsOn?.description), \(timestamp: now), \(timestamp: now))
            RETURNING \(columns)
            """)
        else { throw StorageFailure(location: "roster", detail: "INSERT INTO shift ... RETURNING gave no row") }
        return try Shift(row: row)
    }

    func update(_ session: any SQLSession) throws {
        try session.execute("""
            UPDATE shift SET start_minute = \(start.minutes), duration_minutes = \(durationMinutes), position = \(position),
                assignee_user_id = \(assignee), ends_on = \(endsOn?.description), updated_at = \(timestamp: updatedAt)
            WHERE id = \(id)
            """)
    }

    static func find(_ session: any SQLSession, id: Int64) throws -> Shift? {
        try session.fetchOne("SELECT \(columns) FROM shift WHERE id = \(id)").map(Shift.init(row:))
    }

    /// The shifts of `teamIDs` that may occur between `from` and `to`.
    static func occurring(_ session: any SQLSession, teamIDs: [Int64], from: LocalDate, to: LocalDate) throws -> [Shift] {
        guard !teamIDs.isEmpty else { return [] }
        return try session.fetchAll("""
            SELECT \(columns) FROM shift
            WHERE team_id IN (\(list: teamIDs)) AND starts_on <= \(to.description) AND (ends_on IS NULL OR ends_on >= \(from.description))
            ORDER BY id
            """).map(Shift.init(row:))
    }

    /// Whether the shift occurs on `date`.
    func occurs(on date: LocalDate) -> Bool {
        date >= startsOn && (endsOn.map { date <= $0 } ?? true) && date.weekday == weekday
    }

    /// The dates it occurs on from `from` through `to`, in order.
    func dates(from: LocalDate, through to: LocalDate) -> [LocalDate] {
        let first = max(from, startsOn)
        let last = endsOn.map { min(to, $0) } ?? to
        guard first <= last else { return [] }
        let ahead = (weekday.rawValue - first.weekday.rawValue + 7) % 7
        return stride(from: first.epochDay + ahead, through: last.epochDay, by: 7).map(LocalDate.init(epochDay:))
    }

    /// The occurrence on `date` as two instants in `zone`.
    ///
    /// The start and the end are each wall-clock times read by `TeamTimeZone.instant` (RFC 5545's
    /// rule), so a 09:00–17:00 shift is 09:00–17:00 local on both sides of a daylight-saving
    /// change, and a night shift across the change is an hour shorter or longer, as worked. Only
    /// when the end would come out no later than the start (a shift inside the skipped hour, such
    /// as 02:30–03:00) does the occurrence keep its wall-clock length from its moved start.
    func slot(on date: LocalDate, in zone: TeamTimeZone) -> Slot {
        let starts = zone.instant(date, minute: start.minutes)
        var ends = zone.instant(date, minute: start.minutes + durationMinutes)
        if ends <= starts { ends = starts + Int64(durationMinutes) * 60_000 }
        return Slot(shiftID: id, date: date, startsAt: starts, endsAt: ends)
    }

    /// The wall-clock end: `start` plus the length, past midnight when it runs over.
    var end: TimeOfDay { TimeOfDay(minutes: (start.minutes + durationMinutes) % TimeOfDay.minutesPerDay)! }

    func result(_ people: PeopleDirectory) -> ShiftResult {
        ShiftResult(
            id: id, teamID: teamID, repeats: repeats.rawValue, weekday: weekday.name, start: start.description, end: end.description,
            durationMinutes: durationMinutes, position: position, assignee: people.person(assignee), from: startsOn.description,
            until: endsOn?.description, createdAt: Timestamp.rfc3339(createdAt), updatedAt: Timestamp.rfc3339(updatedAt))
    }
}

/// One occurrence of a shift: which shift, which day, and when it starts and ends.
struct Slot: Hashable, Sendable {
    let shiftID: Int64
    let date: LocalDate
    let startsAt: Int64
    let endsAt: Int64

    var key: OccurrenceKey { OccurrenceKey(shiftID: shiftID, date: date) }
    var minutes: Int { Int((endsAt - startsAt) / 60_000) }

    func overlaps(_ other: Slot) -> Bool { startsAt < other.endsAt && other.startsAt < endsAt }
}

/// What names an occurrence everywhere: its shift and its day.
struct OccurrenceKey: Hashable, Sendable, CustomStringConvertible {
    let shiftID: Int64
    let date: LocalDate

    var description: String { "shift \(shiftID) on \(date)" }
}

/// A shift of the schedule on the wire.
struct ShiftResult: Codable, Sendable {
    let id: Int64
    let teamID: Int64
    /// `weekly` or `once`.
    let repeats: String
    let weekday: String
    let start: String
    let end: String
    let durationMinutes: Int
    let position: String
    /// Absent for an open shift.
    let assignee: PersonResult?
    /// The first day it may occur; for a one-off shift, its day.
    let from: String
    /// The last day it may occur; absent while a weekly shift goes on.
    let until: String?
    let createdAt: String
    let updatedAt: String
}
