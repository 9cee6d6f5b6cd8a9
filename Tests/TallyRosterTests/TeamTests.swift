import TallyProtocol
import Testing

@testable import TallyRoster

/// Teams, invites, roles: who may do what.
@Suite struct TeamTests {
    let ann = RosterHarness.ann, bo = RosterHarness.bo, cleo = RosterHarness.cleo, dan = RosterHarness.dan

    @Test func everyCommandNeedsACaller() throws {
        let harness = try RosterHarness()
        for command in RosterService.descriptions.map(\.name) where command != "roster.events" {
            #expect(RosterService.table.entry(command)?.description.access == .user, "\(command) is for signed-in people")
            let error = harness.error(command, [:], as: nil)
            #expect(error?.code == .unauthenticated, "\(command): \(String(describing: error))")
            #expect(error?.message.contains("needs a signed-in caller") == true)
        }
    }

    @Test func aNewTeamHasItsCreatorAsManager() throws {
        let harness = try RosterHarness()
        let team = try harness.call(
            "roster.create_team", ["name": " Corner Store ", "time_zone": "Europe/Amsterdam", "display_name": "Ann B."], as: ann)
        #expect(team["name"] == "Corner Store")
        #expect(team["role"] == "manager")
        #expect(team["requires_approval"] == true)
        #expect(team["hours_margin_minutes"] == 60)
        let id = try #require(team["id"])
        let detail = try harness.call("roster.team", ["team_id": id], as: ann)
        #expect(detail["members"]?.arrayValue?.map { $0["display_name"] } == ["Ann B."])
        #expect(try harness.call("roster.teams", as: ann)["teams"]?.arrayValue?.map { $0["id"] } == [id])
        #expect(try harness.call("roster.teams", as: bo)["teams"] == [])
    }

    @Test func teamArgumentsAreChecked() throws {
        let harness = try RosterHarness()
        #expect(harness.error("roster.create_team", ["name": "X", "time_zone": "Europe/Atlantis"], as: ann)?.field == "args.time_zone")
        #expect(harness.error("roster.create_team", ["name": "X"], as: ann)?.field == "args.time_zone")
        #expect(harness.error("roster.create_team", ["name": "  ", "time_zone": "UTC"], as: ann)?.field == "args.name")
        #expect(harness.error("roster.create_team", ["name": "X", "time_zone": "UTC", "hours_margin_minutes": 900], as: ann)?.field
            == "args.hours_margin_minutes")
        #expect(harness.error("roster.create_team", ["name": "X", "time_zone": "UTC", "owner": "ann"], as: ann)?.field == "args.owner")
    }

    @Test func peopleJoinWithASingleUseInvite() throws {
        let harness = try RosterHarness()
        let team = try harness.team(members: [])
        let invite = try harness.call("roster.create_invite", ["team_id": .integer(team)], as: ann)
        let code = try #require(invite["code"]?.stringValue)
        #expect(code.count == 14 && code.split(separator: "-").count == 3)
        #expect(invite["role"] == "employee")
        // Typed in lower case, without dashes, it is the same code.
        let joined = try harness.call("roster.join", ["code": .string(code.lowercased().replacingOccurrences(of: "-", with: ""))], as: bo)
        #expect(joined["team"]?["role"] == "employee")
        #expect(joined["member"]?["display_name"] == "bo", "the name from the token")
        #expect(joined["member"]?["user_id"] == "u-bo")
        #expect(harness.error("roster.join", ["code": .string(code)], as: bo)?.code == .alreadyExists)
        let used = harness.error("roster.join", ["code": .string(code)], as: cleo)
        #expect(used?.code == .failedPrecondition)
        #expect(used?.message.contains("has been used") == true)
        #expect(harness.error("roster.join", ["code": "AAAA-BBBB-CCCC"], as: cleo)?.code == .notFound)

        let late = try #require(harness.call("roster.create_invite", ["team_id": .integer(team), "valid_hours": 1], as: ann)["code"]?.stringValue)
        try harness.execute("UPDATE invite SET expires_at = \(timestamp: 1_000)")
        let expired = harness.error("roster.join", ["code": .string(late)], as: cleo)
        #expect(expired?.code == .failedPrecondition)
        #expect(expired?.message.contains("expired") == true)
    }

    @Test func anEmployeeCannotDoAManagersWork() throws {
        let harness = try RosterHarness()
        let team = try harness.team()
        let id = JSONValue.integer(team)
        let attempts: [(String, JSONValue)] = [
            ("roster.create_invite", ["team_id": id]),
            ("roster.update_team", ["team_id": id, "requires_approval": false]),
            ("roster.add_shift", ["team_id": id, "date": .string(Day.from(today: 3)), "start": "09:00", "end": "17:00", "position": "Cashier"]),
            ("roster.set_role", ["team_id": id, "user_id": "u-cleo", "role": "manager"]),
            ("roster.remove_member", ["team_id": id, "user_id": "u-cleo"]),
        ]
        for (command, args) in attempts {
            let error = harness.error(command, args, as: bo)
            #expect(error?.code == .permissionDenied, "\(command)")
            #expect(error?.message.hasPrefix("only a manager of team \(team) (Corner Store) may") == true, "\(String(describing: error))")
        }
        // Nor act for a colleague.
        let shift = try harness.shift(team, on: Day.from(today: 3), worker: cleo)
        let error = harness.error("roster.offer", ["shift_id": .integer(shift), "date": .string(Day.from(today: 3)), "for_user_id": "u-cleo"], as: bo)
        #expect(error?.code == .permissionDenied)
        #expect(error?.field == "args.for_user_id")
    }

    @Test func outsidersSeeNoTeam() throws {
        let harness = try RosterHarness()
        let team = try harness.team()
        for command in ["roster.team", "roster.market", "roster.leaderboard"] {
            let error = harness.error(command, ["team_id": .integer(team)], as: dan)
            #expect(error?.code == .notFound, "\(command)")
            #expect(error?.field == "args.team_id")
        }
        #expect(harness.error("roster.team", ["team_id": 99], as: ann)?.message == "you are not a member of a team 99")
    }

    @Test func aTeamKeepsAManager() throws {
        let harness = try RosterHarness()
        let team = JSONValue.integer(try harness.team())
        let alone = harness.error("roster.set_role", ["team_id": team, "user_id": "u-ann", "role": "employee"], as: ann)
        #expect(alone?.code == .failedPrecondition)
        #expect(alone?.message.contains("only manager") == true)
        #expect(harness.error("roster.remove_member", ["team_id": team, "user_id": "u-ann"], as: ann)?.code == .failedPrecondition)
        try harness.call("roster.set_role", ["team_id": team, "user_id": "u-bo", "role": "manager"], as: ann)
        // Now bo may do a manager's work, and ann may leave.
        try harness.call("roster.create_invite", ["team_id": team], as: bo)
        try harness.call("roster.remove_member", ["team_id": team, "user_id": "u-ann"], as: ann)
        #expect(try harness.call("roster.teams", as: ann)["teams"] == [])
        #expect(harness.error("roster.team", ["team_id": team], as: ann)?.code == .notFound)
    }

    @Test func aLeaversShiftsBecomeOpenAndTheirTradesEnd() throws {
        let harness = try RosterHarness()
        let team = try harness.team()
        let day = Day.from(today: 5)
        let weekly = try harness.weekly(team, Day.today.adding(days: 5).weekday.name, from: Day.from(today: 1), worker: cleo)
        let bosShift = try harness.shift(team, on: Day.from(today: 6), worker: bo)
        let offer = try harness.offer(bosShift, on: Day.from(today: 6), as: bo)
        try harness.trade(offer, "roster.take", as: cleo)
        let cleosOffer = try harness.offer(weekly, on: day, as: cleo)

        let removal = try harness.call("roster.remove_member", ["team_id": .integer(team), "user_id": "u-cleo"], as: ann)
        #expect(removal["opened_shifts"] == [.integer(weekly)])
        #expect(Set(removal["affected_trades"]?.arrayValue ?? []) == [.integer(offer), .integer(cleosOffer)])
        #expect(try harness.worker(team, shift: weekly, on: day) == nil, "open now")
        #expect(try harness.state(of: offer) == "offered", "bo's offer is back on the marketplace")
        #expect(try harness.state(of: cleosOffer) == "withdrawn")
        let market = try harness.call("roster.market", ["team_id": .integer(team)], as: bo)
        #expect(market["wanted"]?.arrayValue?.contains { $0["shift_id"]?.intValue == weekly } == true)
        // The history keeps her name.
        #expect(try harness.call("roster.trade", ["trade_id": .integer(cleosOffer)], as: ann)["trade"]?["from"]?["display_name"] == "cleo")
    }

    @Test func managersChangeTeamSettings() throws {
        let harness = try RosterHarness()
        let team = JSONValue.integer(try harness.team())
        let updated = try harness.call(
            "roster.update_team", ["team_id": team, "requires_approval": false, "hours_margin_minutes": 15, "name": "Corner Shop"], as: ann)
        #expect(updated["requires_approval"] == false)
        #expect(updated["hours_margin_minutes"] == 15)
        #expect(updated["name"] == "Corner Shop")
        let events = try harness.events().filter { $0.type == "roster.team_updated" }
        #expect(events.last?.data["changed"] == ["name", "requires_approval", "hours_margin_minutes"])
        #expect(harness.error("roster.update_team", ["team_id": team], as: ann)?.field == "args")
    }
}
