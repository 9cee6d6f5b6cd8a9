import TallyProtocol
import TallyStorage
import Testing

/// Points for covering colleagues, the leaderboard, and hours worked.
@Suite struct PointsAndHoursTests {
    let ann = RosterHarness.ann, bo = RosterHarness.bo, cleo = RosterHarness.cleo, eve = RosterHarness.eve

    private func board(_ harness: RosterHarness, _ team: Int64, from: String = Day.from(today: -40), to: String = Day.from(today: 40)) throws
        -> [[JSONValue?]]
    {
        let result = try harness.call("roster.leaderboard", ["team_id": .integer(team), "from": .string(from), "to": .string(to)], as: bo)
        return (result["entries"]?.arrayValue ?? []).map { [$0["rank"], $0["user_id"], $0["points"], $0["shifts_covered"]] }
    }

    @Test func coveringEarnsPointsAndShortNoticeEarnsMore() throws {
        let harness = try RosterHarness()
        let team = try harness.team(members: [bo, cleo, eve])
        // Well ahead: 10 points.
        let later = Day.from(today: 5)
        let trade = try harness.offer(try harness.shift(team, on: later, worker: bo), on: later, as: bo)
        try harness.trade(trade, "roster.take", as: cleo)
        #expect(try board(harness, team).first { $0[1] == "u-cleo" }?[2] == 0, "nothing before approval")
        try harness.trade(trade, "roster.approve", as: ann)
        // Tomorrow's open shift at midnight, less than a day away: 15 points.
        let soon = Day.from(today: 1)
        let open = try harness.shift(team, on: soon, start: "00:00", end: "04:00", worker: nil)
        let volunteered = try harness.call("roster.volunteer", ["shift_id": .integer(open), "date": .string(soon)], as: eve)
        try harness.trade(try #require(volunteered["id"]?.intValue), "roster.approve", as: ann)
        #expect(try board(harness, team) == [[1, "u-eve", 15, 1], [2, "u-cleo", 10, 1], [3, "u-ann", 0, 0], [3, "u-bo", 0, 0]])
    }

    @Test func shortNoticeIsMeasuredFromTheTake() throws {
        let harness = try RosterHarness()
        let team = try harness.team()
        let date = Day.from(today: 3)
        let trade = try harness.offer(try harness.shift(team, on: date, worker: bo), on: date, as: bo)
        try harness.trade(trade, "roster.take", as: cleo)
        // Taken within a day of its start (the clock moved on behind the service's back).
        // A timestamp is milliseconds on SQLite and TIMESTAMPTZ on PostgreSQL: an hour is spelt per engine.
        try harness.execute("UPDATE trade SET claimed_at = " + SQL.dialect { $0 == .sqlite ? "starts_at - 3600000" : "starts_at - INTERVAL '1 hour'" })
        try harness.trade(trade, "roster.approve", as: ann)
        #expect(try board(harness, team).first?[1 ... 2] == ["u-cleo", 15])
        let reason = try harness.store.read { try $0.fetchValue("SELECT reason FROM point_entry", as: String.self) }
        #expect(reason == "covered a colleague's shift at short notice")
    }

    @Test func swapsEarnNothingAndGivingACoveredShiftAwayTakesItsPointsBack() throws {
        let harness = try RosterHarness()
        let team = try harness.team(members: [bo, cleo, eve])
        let date = Day.from(today: 5)
        let shift = try harness.shift(team, on: date, worker: bo)
        let first = try harness.offer(shift, on: date, as: bo)
        try harness.trade(first, "roster.take", as: cleo)
        try harness.trade(first, "roster.approve", as: ann)
        #expect(try board(harness, team).first?[1 ... 3] == ["u-cleo", 10, 1])
        // cleo passes it on to eve: eve earns, cleo's points go.
        let second = try harness.offer(shift, on: date, as: cleo)
        try harness.trade(second, "roster.take", as: eve)
        try harness.trade(second, "roster.approve", as: ann)
        let entries = try board(harness, team)
        #expect(entries.first { $0[1] == "u-eve" }?[2 ... 3] == [10, 1])
        #expect(entries.first { $0[1] == "u-cleo" }?[2 ... 3] == [0, 0])
        // A swap: nothing either way.
        let other = try harness.shift(team, on: Day.from(today: 6), worker: bo)
        let swap = try #require(harness.call(
            "roster.propose_swap",
            ["shift_id": .integer(shift), "date": .string(date), "with_shift_id": .integer(other), "with_date": .string(Day.from(today: 6))],
            as: eve)["id"]?.intValue)
        try harness.trade(swap, "roster.accept_swap", as: bo)
        try harness.trade(swap, "roster.approve", as: ann)
        #expect(try board(harness, team).first { $0[1] == "u-bo" }?[2] == 0)
        #expect(try board(harness, team).first { $0[1] == "u-eve" }?[2] == 0, "eve gave the covered shift away in the swap")
    }

    @Test func theLeaderboardRanksTiesTogetherAndCountsByShiftDay() throws {
        let harness = try RosterHarness()
        let team = try harness.team(members: [bo, cleo, eve])
        for (day, giver, taker) in [(3, bo, cleo), (4, cleo, eve), (5, bo, ann), (40, cleo, bo)] {
            let date = Day.from(today: day)
            let trade = try harness.offer(try harness.shift(team, on: date, worker: giver), on: date, as: giver)
            try harness.trade(trade, "roster.take", as: taker)
            try harness.trade(trade, "roster.approve", as: ann)
        }
        #expect(try board(harness, team, from: Day.from(today: 0), to: Day.from(today: 10)) == [
            [1, "u-ann", 10, 1], [1, "u-cleo", 10, 1], [1, "u-eve", 10, 1], [4, "u-bo", 0, 0],
        ])
        let defaults = try harness.call("roster.leaderboard", ["team_id": .integer(team)], as: bo)
        #expect(defaults["from"]?.stringValue?.hasSuffix("-01") == true, "the current month by default")
    }

    @Test func hoursAreRecordedWithinWhatTheShiftAllows() throws {
        let harness = try RosterHarness()
        let team = try harness.team(margin: 30)
        let yesterday = Day.from(today: -2)
        let shift = try harness.shift(team, on: yesterday, worker: bo)
        let args: JSONValue = ["shift_id": .integer(shift), "date": .string(yesterday), "minutes": 500]
        let recorded = try harness.call("roster.record_hours", args, as: bo)
        #expect(recorded["minutes"] == 500)
        #expect(recorded["worker"]?["user_id"] == "u-bo")
        #expect(recorded["shift"]?["minutes"] == 480)
        let over = harness.error("roster.record_hours", ["shift_id": .integer(shift), "date": .string(yesterday), "minutes": 511], as: bo)
        #expect(over?.code == .invalidArgument)
        #expect(over?.message.contains("its 480 minutes plus the team's margin of 30") == true)
        #expect(harness.error("roster.record_hours", args, as: cleo)?.code == .permissionDenied, "not her shift")
        // Recording again replaces; a manager may record for the worker.
        let corrected = try harness.call(
            "roster.record_hours", ["shift_id": .integer(shift), "date": .string(yesterday), "minutes": 450, "for_user_id": "u-bo"], as: ann)
        #expect(corrected["recorded_by"]?["user_id"] == "u-ann")
        #expect(try harness.events().last { $0.type == "roster.hours_recorded" }?.data["previous_minutes"] == 500)
        // Not for the future.
        let tomorrow = Day.from(today: 2)
        let future = try harness.shift(team, on: tomorrow, worker: bo)
        let early = harness.error("roster.record_hours", ["shift_id": .integer(future), "date": .string(tomorrow), "minutes": 60], as: bo)
        #expect(early?.code == .failedPrecondition)
        #expect(early?.message.contains("not for the future") == true)
    }

    @Test func hoursAddUpPerPersonAndPeriod() throws {
        let harness = try RosterHarness()
        let team = try harness.team()
        for (day, worker, minutes) in [(-3, bo, 480), (-2, bo, 465), (-2, cleo, 240), (-20, cleo, 300)] {
            let date = Day.from(today: day)
            let start = worker.userID == "u-bo" ? "09:00" : "18:00"
            let end = worker.userID == "u-bo" ? "17:00" : "23:00"
            let shift = try harness.shift(team, on: date, start: start, end: end, worker: worker)
            try harness.call("roster.record_hours", ["shift_id": .integer(shift), "date": .string(date), "minutes": .integer(Int64(minutes))], as: worker)
        }
        let period: JSONValue = ["team_id": .integer(team), "from": .string(Day.from(today: -7)), "to": .string(Day.from(today: 0))]
        let all = try harness.call("roster.hours", period, as: ann)
        #expect(all["people"]?.arrayValue?.map { [$0["user_id"], $0["minutes"], $0["shifts"]] } == [["u-bo", 945, 2], ["u-cleo", 240, 1]])
        #expect(all["total_minutes"] == 1185)
        #expect(all["records"]?.arrayValue?.count == 3)
        // An employee sees their own.
        let own = try harness.call("roster.hours", period, as: cleo)
        #expect(own["people"]?.arrayValue?.map { $0["user_id"] } == ["u-cleo"])
        guard case .object(var others) = period else { return }
        others["user_id"] = "u-bo"
        #expect(harness.error("roster.hours", .object(others), as: cleo)?.code == .permissionDenied)
        #expect(try harness.call("roster.hours", .object(others), as: ann)["total_minutes"] == 945)
    }
}
