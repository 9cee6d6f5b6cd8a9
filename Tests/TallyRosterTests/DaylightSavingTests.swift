import TallyProtocol
import Testing

/// `roster.schedule` across daylight-saving changes: a 09:00 shift stays 09:00 local; a shift that
/// starts in the skipped hour starts as far after the gap as it was into it (RFC 5545's rule); one
/// in the repeated hour starts at the first of the two; a night shift across a change is an hour
/// shorter or longer, as worked.
@Suite struct DaylightSavingTests {
    typealias Seen = [String]

    /// date, starts_at, ends_at and minutes of the team's occurrences from `from` to `to`.
    private func schedule(_ harness: RosterHarness, _ team: Int64, _ from: String, _ to: String) throws -> [Seen] {
        let result = try harness.call(
            "roster.schedule", ["view": "team", "team_id": .integer(team), "from": .string(from), "to": .string(to)], as: RosterHarness.ann)
        return (result["occurrences"]?.arrayValue ?? []).map { occurrence in
            [
                occurrence["date"]?.stringValue ?? "?", occurrence["starts_at"]?.stringValue ?? "?",
                occurrence["ends_at"]?.stringValue ?? "?", String(occurrence["minutes"]?.intValue ?? -1),
            ]
        }
    }

    @Test func amsterdamSpringWeek() throws {
        let harness = try RosterHarness()
        let team = try harness.team(zone: "Europe/Amsterdam")
        try harness.weekly(team, "sunday", from: "2026-03-01", worker: RosterHarness.bo)
        try harness.weekly(team, "saturday", from: "2026-03-21", start: "22:00", end: "06:00", position: "Night", worker: RosterHarness.cleo)
        try harness.shift(team, on: "2026-03-29", start: "02:30", end: "10:30", position: "Bakery", worker: RosterHarness.ann)
        try harness.shift(team, on: "2026-03-29", start: "02:30", end: "03:00", position: "Delivery", worker: nil)
        #expect(try schedule(harness, team, "2026-03-22", "2026-04-05") == [
            ["2026-03-22", "2026-03-22T09:00:00+01:00", "2026-03-22T17:00:00+01:00", "480"],
            ["2026-03-28", "2026-03-28T22:00:00+01:00", "2026-03-29T06:00:00+02:00", "420"],
            ["2026-03-29", "2026-03-29T03:30:00+02:00", "2026-03-29T10:30:00+02:00", "420"],
            // Wholly inside the skipped hour: it keeps its 30 minutes from its moved start.
            ["2026-03-29", "2026-03-29T03:30:00+02:00", "2026-03-29T04:00:00+02:00", "30"],
            ["2026-03-29", "2026-03-29T09:00:00+02:00", "2026-03-29T17:00:00+02:00", "480"],
            ["2026-04-04", "2026-04-04T22:00:00+02:00", "2026-04-05T06:00:00+02:00", "480"],
            ["2026-04-05", "2026-04-05T09:00:00+02:00", "2026-04-05T17:00:00+02:00", "480"],
        ])
    }

    @Test func amsterdamAutumnWeek() throws {
        let harness = try RosterHarness()
        let team = try harness.team(zone: "Europe/Amsterdam")
        try harness.weekly(team, "sunday", from: "2026-10-01", worker: RosterHarness.bo)
        try harness.weekly(team, "saturday", from: "2026-10-24", start: "22:00", end: "06:00", position: "Night", worker: RosterHarness.cleo)
        try harness.shift(team, on: "2026-10-25", start: "02:30", end: "10:30", position: "Bakery", worker: RosterHarness.ann)
        #expect(try schedule(harness, team, "2026-10-18", "2026-10-25") == [
            ["2026-10-18", "2026-10-18T09:00:00+02:00", "2026-10-18T17:00:00+02:00", "480"],
            ["2026-10-24", "2026-10-24T22:00:00+02:00", "2026-10-25T06:00:00+01:00", "540"],
            // 02:30 happens twice: the shift starts at the first, in summer time.
            ["2026-10-25", "2026-10-25T02:30:00+02:00", "2026-10-25T10:30:00+01:00", "540"],
            ["2026-10-25", "2026-10-25T09:00:00+01:00", "2026-10-25T17:00:00+01:00", "480"],
        ])
    }

    @Test func newYorkSpringAndAutumnWeeks() throws {
        let harness = try RosterHarness()
        let team = try harness.team(zone: "America/New_York")
        try harness.weekly(team, "sunday", from: "2026-03-01", worker: RosterHarness.bo)
        try harness.shift(team, on: "2026-03-08", start: "02:30", end: "06:00", position: "Bakery", worker: RosterHarness.ann)
        try harness.shift(team, on: "2026-11-01", start: "01:30", end: "05:00", position: "Bakery", worker: RosterHarness.ann)
        #expect(try schedule(harness, team, "2026-03-01", "2026-03-08") == [
            ["2026-03-01", "2026-03-01T09:00:00-05:00", "2026-03-01T17:00:00-05:00", "480"],
            ["2026-03-08", "2026-03-08T03:30:00-04:00", "2026-03-08T06:00:00-04:00", "150"],
            ["2026-03-08", "2026-03-08T09:00:00-04:00", "2026-03-08T17:00:00-04:00", "480"],
        ])
        #expect(try schedule(harness, team, "2026-10-25", "2026-11-01") == [
            ["2026-10-25", "2026-10-25T09:00:00-04:00", "2026-10-25T17:00:00-04:00", "480"],
            ["2026-11-01", "2026-11-01T01:30:00-04:00", "2026-11-01T05:00:00-05:00", "270"],
            ["2026-11-01", "2026-11-01T09:00:00-05:00", "2026-11-01T17:00:00-05:00", "480"],
        ])
    }

    @Test func occurrencesNameTheirZone() throws {
        let harness = try RosterHarness()
        let team = try harness.team(zone: "America/New_York")
        try harness.weekly(team, "sunday", from: "2026-03-01", worker: RosterHarness.bo)
        let result = try harness.call(
            "roster.schedule", ["view": "team", "team_id": .integer(team), "from": "2026-03-01", "to": "2026-03-01"], as: RosterHarness.bo)
        #expect(result["occurrences"]?[0]?["time_zone"] == "America/New_York")
        #expect(result["occurrences"]?[0]?["weekday"] == "sunday")
    }
}
