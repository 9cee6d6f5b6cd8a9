import TallyNotifier
import TallyProtocol
import Testing

@testable import TallyRoster

/// A week of a team's life, from the README's story: a manager and two employees, a weekly
/// schedule, an offered Saturday shift taken and approved, the alerts that go out (through the
/// notifier's rules, from the events the service recorded), points, and hours worked.
@Suite struct WeekOfATeamTests {
    let ann = RosterHarness.ann, bo = RosterHarness.bo, cleo = RosterHarness.cleo

    /// The first `weekday` at least `days` from today, and the last one at least `days` ago.
    private func next(_ weekday: Weekday, atLeast days: Int) -> LocalDate {
        let start = Day.today.adding(days: days)
        return start.adding(days: (weekday.rawValue - start.weekday.rawValue + 7) % 7)
    }

    private func last(_ weekday: Weekday, atLeast days: Int) -> LocalDate {
        let end = Day.today.adding(days: -days)
        return end.adding(days: -((end.weekday.rawValue - weekday.rawValue + 7) % 7))
    }

    @Test func aWeek() throws {
        let harness = try RosterHarness()
        // Monday: ann starts the team and invites bo and cleo.
        let team = try #require(harness.call(
            "roster.create_team", ["name": "Corner Store", "time_zone": "Europe/Amsterdam"], as: ann)["id"]?.intValue)
        try harness.join(team, bo)
        try harness.join(team, cleo)
        let from = Day.from(today: -21)
        let saturday = try harness.weekly(team, "saturday", from: from, worker: bo)
        let sunday = try harness.weekly(team, "sunday", from: from, start: "10:00", end: "16:00", worker: cleo)

        // The schedule of the coming Saturday: bo's.
        let nextSaturday = next(.saturday, atLeast: 2).description
        #expect(try harness.worker(team, shift: saturday, on: nextSaturday) == "u-bo")

        // Tuesday: bo offers it; cleo and ann could take it, so they are told.
        let sequence = try harness.store.lastEventSequence()
        let trade = try harness.offer(saturday, on: nextSaturday, as: bo)
        // Wednesday: cleo takes it; ann is asked to approve.
        try harness.trade(trade, "roster.take", as: cleo)
        #expect(try harness.call("roster.market", ["team_id": .integer(team)], as: ann)["awaiting_approval"]?.arrayValue?.count == 1)
        // Thursday: ann approves. bo and cleo both hear.
        #expect(try harness.trade(trade, "roster.approve", as: ann)["state"] == "approved")

        let alerts = try harness.events(after: sequence).flatMap { AlertRules.alerts(for: $0) }
        let shiftText = "Cashier on Saturday \(nextSaturday), 09:00–17:00 at Corner Store"
        #expect(alerts.map { [$0.kind, $0.owner, $0.text] } == [
            ["shift_offered", "u-ann", "bo offers a shift you could take: \(shiftText)"],
            ["shift_offered", "u-cleo", "bo offers a shift you could take: \(shiftText)"],
            ["approval_requested", "u-ann", "Waiting for your approval: cleo takes bo's shift \(shiftText)"],
            ["shift_approved", "u-bo", "Shift change approved: cleo takes bo's shift \(shiftText)"],
            ["shift_approved", "u-cleo", "Shift change approved: cleo takes bo's shift \(shiftText)"],
        ])

        // The roster now: cleo works it; bo's own view shows it given away.
        #expect(try harness.worker(team, shift: saturday, on: nextSaturday) == "u-cleo")
        let bos = try harness.call("roster.schedule", ["from": .string(nextSaturday), "to": .string(nextSaturday)], as: bo)
        #expect(bos["occurrences"]?.arrayValue?.map { $0["assignee"]?["user_id"] } == ["u-cleo"])
        // cleo earned her points.
        let board = try harness.call("roster.leaderboard", ["team_id": .integer(team), "from": .string(nextSaturday), "to": .string(nextSaturday)], as: bo)
        #expect(board["entries"]?[0]?["user_id"] == "u-cleo")
        #expect(board["entries"]?[0]?["points"] == 10)

        // Friday: hours of last weekend.
        let lastSaturday = last(.saturday, atLeast: 2).description
        let lastSunday = last(.sunday, atLeast: 2).description
        try harness.call("roster.record_hours", ["shift_id": .integer(saturday), "date": .string(lastSaturday), "minutes": 495], as: bo)
        try harness.call("roster.record_hours", ["shift_id": .integer(sunday), "date": .string(lastSunday), "minutes": 360], as: cleo)
        let hours = try harness.call(
            "roster.hours", ["team_id": .integer(team), "from": .string(Day.from(today: -9)), "to": .string(Day.from(today: 0))], as: ann)
        #expect(hours["people"]?.arrayValue?.map { [$0["display_name"], $0["minutes"]] } == [["bo", 495], ["cleo", 360]])

        // cleo's calendar has the Saturday now.
        let calendar = try harness.call("roster.ical", ["from": .string(nextSaturday), "to": .string(nextSaturday)], as: cleo)
        #expect(calendar["events"] == 1)
        #expect(calendar["calendar"]?.stringValue?.contains("UID:\(saturday)-\(nextSaturday.replacingOccurrences(of: "-", with: ""))@roster.tally") == true)
    }
}
