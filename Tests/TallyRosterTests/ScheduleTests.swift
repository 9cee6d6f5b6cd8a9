import TallyProtocol
import Testing

@testable import TallyRoster

/// The schedule: weekly and one-off shifts, changing and removing them, and the two views.
@Suite struct ScheduleTests {
    let ann = RosterHarness.ann, bo = RosterHarness.bo, cleo = RosterHarness.cleo

    @Test func weeklyAndOneOffShifts() throws {
        let harness = try RosterHarness()
        let team = try harness.team()
        let weekly = try harness.call(
            "roster.add_shift",
            ["team_id": .integer(team), "weekday": "monday", "from": "2030-03-01", "until": "2030-03-31", "start": "22:00", "end": "06:00",
             "position": "Night", "assignee": "u-bo"], as: ann)
        #expect(weekly["repeats"] == "weekly")
        #expect(weekly["duration_minutes"] == 480)
        #expect(weekly["end"] == "06:00")
        #expect(weekly["assignee"]?["display_name"] == "bo")
        let once = try harness.call(
            "roster.add_shift",
            ["team_id": .integer(team), "date": "2030-03-06", "start": "12:00", "duration_minutes": 90, "position": "Stock"], as: ann)
        #expect(once["repeats"] == "once")
        #expect(once["weekday"] == "wednesday")
        #expect(once["end"] == "13:30")
        #expect(once["assignee"] == nil)

        let schedule = try harness.call(
            "roster.schedule", ["view": "team", "team_id": .integer(team), "from": "2030-03-01", "to": "2030-04-30"], as: cleo)
        let dates = schedule["occurrences"]?.arrayValue?.map { [$0["date"], $0["status"]] }
        #expect(dates == [
            ["2030-03-04", "assigned"], ["2030-03-06", "open"], ["2030-03-11", "assigned"], ["2030-03-18", "assigned"],
            ["2030-03-25", "assigned"],
        ])
        // bo's own view has only his.
        let mine = try harness.call("roster.schedule", ["from": "2030-03-01", "to": "2030-04-30"], as: bo)
        #expect(mine["occurrences"]?.arrayValue?.count == 4)
        #expect(try harness.call("roster.schedule", ["from": "2030-03-01", "to": "2030-04-30"], as: cleo)["occurrences"] == [])
    }

    @Test func shiftArgumentsAreChecked() throws {
        let harness = try RosterHarness()
        let team = JSONValue.integer(try harness.team())
        let base: [String: JSONValue] = ["team_id": team, "start": "09:00", "end": "17:00", "position": "Cashier"]
        func error(_ changes: [String: JSONValue]) -> TallyError? {
            harness.error("roster.add_shift", .object(base.merging(changes) { $1 }), as: ann)
        }
        #expect(error([:])?.message.hasPrefix("give weekday for a shift every week") == true)
        #expect(error(["weekday": "monday", "date": "2030-03-04"])?.field == "args.date")
        #expect(error(["date": "2030-03-04", "from": "2030-03-01"])?.field == "args.from")
        #expect(error(["weekday": "Monday"])?.field == "args.weekday")
        #expect(error(["weekday": "monday", "start": "9:00"])?.field == "args.start")
        #expect(error(["weekday": "monday", "end": "09:00"])?.message.contains("duration_minutes 1440") == true)
        #expect(error(["weekday": "monday", "duration_minutes": 60])?.field == "args.duration_minutes")
        #expect(error(["weekday": "monday", "from": "2030-03-10", "until": "2030-03-01"])?.field == "args.until")
        #expect(error(["weekday": "monday", "assignee": "u-dan"])?.code == .notFound)
        #expect(error(["date": "2030-02-30"])?.field == "args.date")
        #expect(harness.error("roster.schedule", ["from": "2030-03-01", "to": "2030-07-01"], as: ann)?.field == "args.to")
        #expect(harness.error("roster.schedule", ["from": "2030-03-02", "to": "2030-03-01"], as: ann)?.field == "args.to")
        #expect(harness.error("roster.schedule", ["view": "team", "from": "2030-03-02", "to": "2030-03-03"], as: ann)?.field == "args.team_id")
    }

    @Test func aShiftChangesAsAWhole() throws {
        let harness = try RosterHarness()
        let team = try harness.team()
        let shift = try harness.weekly(team, "monday", from: "2030-03-01", worker: bo)
        let updated = try harness.call("roster.update_shift", ["shift_id": .integer(shift), "start": "10:00", "assignee": "u-cleo"], as: ann)
        #expect(updated["start"] == "10:00")
        #expect(updated["end"] == "18:00", "a new start keeps the length")
        #expect(updated["assignee"]?["user_id"] == "u-cleo")
        let ended = try harness.call("roster.update_shift", ["shift_id": .integer(shift), "until": "2030-03-11", "end": "12:00"], as: ann)
        #expect(ended["until"] == "2030-03-11")
        #expect(ended["duration_minutes"] == 120)
        let schedule = try harness.call(
            "roster.schedule", ["view": "team", "team_id": .integer(team), "from": "2030-03-01", "to": "2030-03-31"], as: ann)
        #expect(schedule["occurrences"]?.arrayValue?.map { $0["starts_at"] } == ["2030-03-04T10:00:00+00:00", "2030-03-11T10:00:00+00:00"])
        let event = try harness.events().last { $0.type == "roster.shift_updated" }
        #expect(event?.data["changed"] == ["duration_minutes", "until"])
        #expect(harness.error("roster.update_shift", ["shift_id": .integer(shift), "unassign": true, "assignee": "u-bo"], as: ann)?.field
            == "args.unassign")
        #expect(try harness.call("roster.update_shift", ["shift_id": .integer(shift), "unassign": true], as: ann)["assignee"] == nil)
    }

    @Test func removingAShiftKeepsWhatHasStarted() throws {
        let harness = try RosterHarness()
        let team = try harness.team()
        let weekday = Day.today.adding(days: 3).weekday.name
        let shift = try harness.weekly(team, weekday, from: Day.from(today: -11), worker: bo)
        let trade = try harness.offer(shift, on: Day.from(today: 3), as: bo)
        let removed = try harness.call("roster.remove_shift", ["shift_id": .integer(shift)], as: ann)
        #expect(removed["until"] == .string(Day.from(today: 2)))
        #expect(try harness.state(of: trade) == "withdrawn")
        let schedule = try harness.call(
            "roster.schedule",
            ["view": "team", "team_id": .integer(team), "from": .string(Day.from(today: -14)), "to": .string(Day.from(today: 30))], as: ann)
        #expect(schedule["occurrences"]?.arrayValue?.map { $0["date"] } == [.string(Day.from(today: -11)), .string(Day.from(today: -4))])
        let once = try harness.shift(team, on: Day.from(today: -1), worker: bo)
        #expect(harness.error("roster.remove_shift", ["shift_id": .integer(once)], as: ann)?.code == .failedPrecondition)
    }
}
