import TallyProtocol
import TallyStorage

/// `roster.ical`: the caller's shifts as an iCalendar (RFC 5545) feed, so they show in any
/// calendar app: the shifts they work now (not those given away or waiting for approval), in
/// every team or one, each with its team's time zone.
///
/// Each occurrence keeps its UID from feed to feed (`<shift id>-<date>@roster.tally`), so a
/// calendar that subscribes updates it in place, and drops it when it is given away.
enum ICalCommand {
    static let longestRange = 400
    static let daysBack = 30
    static let daysAhead = 90

    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: RosterStore) throws -> ICalResult {
        try args.allowOnly(["team_id", "from", "to"])
        let teamID = try args.optionalID("team_id", of: "one of your teams")
        let now = Timestamp.now()
        let today = LocalDate(epochDay: Int(now / 86_400_000))
        let dates = try args.optionalDateRange(longest: longestRange, defaults: today.adding(days: -daysBack)...today.adding(days: daysAhead))
        return try store.read { session in
            let teams =
                try teamID.map { [try TeamAccess.member(session, teamID: $0, caller: caller).team] }
                ?? Team.all(session, ids: try Member.teamIDs(session, userID: caller.userID))
            let shifts = try ScheduleReader.occurrences(session, teams: teams, dates: dates).filter { $0.assignee == caller.userID }
            let calendar = ICalendarFeed.render(shifts, zones: teams.map(\.timeZone), dates: dates, stamp: now, owner: caller.username)
            return ICalResult(from: dates.lowerBound.description, to: dates.upperBound.description, events: shifts.count, calendar: calendar)
        }
    }
}

struct ICalResult: Encodable, Sendable {
    let from: String
    let to: String
    /// How many VEVENTs the calendar holds.
    let events: Int
    /// The iCalendar text (`text/calendar`), CRLF line ends.
    let calendar: String
}

/// The VCALENDAR of a person's shifts.
enum ICalendarFeed {
    static func render(_ shifts: [Occurrence], zones: [TeamTimeZone], dates: ClosedRange<LocalDate>, stamp: Int64, owner: String) -> String {
        var ics = ICalendarText()
        ics.begin("VCALENDAR")
        ics.property("VERSION", "2.0")
        ics.property("PRODID", "-//Tally//Roster//EN")
        ics.property("CALSCALE", "GREGORIAN")
        ics.property("METHOD", "PUBLISH")
        ics.text("X-WR-CALNAME", "Shifts of \(owner)")
        // A VTIMEZONE for each zone a DTSTART names, as RFC 5545 requires.
        let used = Set(shifts.map(\.team.timeZone.identifier))
        for zone in zones where used.contains(zone.identifier) {
            timeZone(zone, dates: dates, into: &ics)
        }
        let dtstamp = utc(stamp)
        for shift in shifts {
            let zone = shift.team.timeZone
            ics.begin("VEVENT")
            ics.property("UID", "\(shift.shift.id)-\(shift.slot.date.basic)@roster.tally")
            ics.property("DTSTAMP", dtstamp)
            ics.property("DTSTART;TZID=\(zone.identifier)", local(shift.slot.startsAt, zone))
            ics.property("DTEND;TZID=\(zone.identifier)", local(shift.slot.endsAt, zone))
            ics.text("SUMMARY", "\(shift.shift.position) (\(shift.team.name))")
            ics.property("STATUS", "CONFIRMED")
            ics.end("VEVENT")
        }
        ics.end("VCALENDAR")
        return ics.rendered
    }

    /// The zone's offsets over the feed's days: the offset in force a year before, then each change.
    private static func timeZone(_ zone: TeamTimeZone, dates: ClosedRange<LocalDate>, into ics: inout ICalendarText) {
        let start = Int64(dates.lowerBound.adding(days: -366).epochDay) * 86_400_000
        let end = Int64(dates.upperBound.adding(days: 2).epochDay) * 86_400_000
        let initial = zone.offsetSeconds(at: start)
        ics.begin("VTIMEZONE")
        ics.property("TZID", zone.identifier)
        ics.begin("STANDARD")
        ics.property("DTSTART", "19700101T000000")
        ics.property("TZOFFSETFROM", offset(initial))
        ics.property("TZOFFSETTO", offset(initial))
        ics.end("STANDARD")
        for change in zone.transitions(from: start, to: end) {
            let kind = change.beginsDaylightSaving ? "DAYLIGHT" : "STANDARD"
            ics.begin(kind)
            // The onset as the clock showed it just before: local time in the old offset.
            ics.property("DTSTART", wall(change.at + Int64(change.offsetBefore) * 1000))
            ics.property("TZOFFSETFROM", offset(change.offsetBefore))
            ics.property("TZOFFSETTO", offset(change.offsetAfter))
            ics.end(kind)
        }
        ics.end("VTIMEZONE")
    }

    /// `20300330T090000`: the local time in `zone`.
    private static func local(_ milliseconds: Int64, _ zone: TeamTimeZone) -> String {
        wall(milliseconds + Int64(zone.offsetSeconds(at: milliseconds)) * 1000)
    }

    /// `20300330T080000Z`.
    private static func utc(_ milliseconds: Int64) -> String { wall(milliseconds) + "Z" }

    /// `milliseconds` read as a wall clock at UTC, in iCalendar's basic form.
    private static func wall(_ milliseconds: Int64) -> String {
        let seconds = milliseconds / 1000
        let days = Int(seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400)
        let second = Int(seconds - Int64(days) * 86_400)
        return "\(LocalDate(epochDay: days).basic)T\(LocalDate.padded(second / 3600, 2))\(LocalDate.padded(second % 3600 / 60, 2))\(LocalDate.padded(second % 60, 2))"
    }

    /// `+0100`, `-0500` (and seconds, for the odd historical offset).
    private static func offset(_ seconds: Int) -> String {
        let sign = seconds < 0 ? "-" : "+"
        let magnitude = abs(seconds)
        let text = "\(sign)\(LocalDate.padded(magnitude / 3600, 2))\(LocalDate.padded(magnitude % 3600 / 60, 2))"
        return magnitude % 60 == 0 ? text : text + LocalDate.padded(magnitude % 60, 2)
    }
}
