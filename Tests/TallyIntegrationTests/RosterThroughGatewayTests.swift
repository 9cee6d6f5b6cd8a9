import Foundation
import TallyProtocol
import TallyTesting
import Testing

/// The roster's rules through real processes: client → gateway → `tally worker roster` → back,
/// each person with their own token.
@Suite struct RosterThroughGatewayTests {
    /// Two `tally call` processes take one offer: exactly one gets it, the other
    /// `failed_precondition`, whichever comes first.
    @Test func twoClientProcessesRacingForOneOfferExactlyOneWins() async throws {
        try await TallyStack.with(workers: ["roster": 2]) { stack in
            let ann = try stack.signedIn("ann", userID: "2"), bo = try stack.signedIn("bo", userID: "3")
            let cleo = try stack.signedIn("cleo", userID: "4"), dan = try stack.signedIn("dan", userID: "5")
            let team = try await RosterTeam.create(by: ann, employees: [bo, cleo, dan])
            let saturday = CalendarDay.next(CalendarDay.saturday, atLeast: 3)
            let shift = try await team.once(on: saturday, worker: bo)
            let trade = try await team.offer(shift, on: saturday, by: bo)

            let racers = try [cleo, dan].map { person in
                try stack.launch(
                    "take-\(person.username)",
                    ["call", "roster.take", "{\"trade_id\":\(trade)}", "--token", person.token, "--endpoint", stack.frontend,
                     "--timeout-ms", "20000"])
            }
            for racer in racers { #expect(await racer.waitForExit(timeout: .seconds(60)), "\(racer.log)") }
            let statuses = racers.map(\.exitStatus)
            #expect(statuses.sorted { ($0 ?? -1) < ($1 ?? -1) } == [0, 1], "\(racers.map(\.log))")
            let loser = try #require(racers.first { $0.exitStatus == 1 })
            #expect(loser.log.contains("failed_precondition"), "\(loser.log)")
            #expect(loser.log.contains("awaiting approval"), "the trade's state as the winner left it: \(loser.log)")

            let winner = try #require(racers.first { $0.exitStatus == 0 }).name == "take-cleo" ? cleo : dan
            let settled = try await ann.result("roster.trade", ["trade_id": .integer(trade)])
            #expect(settled["trade"]?["state"] == "awaiting_approval")
            #expect(settled["trade"]?["to"]?["user_id"] == .string(winner.userID))
        }
    }

    /// The world changed between the take and the approval: the manager gave the taker another
    /// shift at that time. Approval checks again, refuses, and the trade keeps waiting.
    @Test func aManagerApprovingATakeThatNowOverlapsIsRefused() async throws {
        try await TallyStack.with(workers: ["roster": 1]) { stack in
            let ann = try stack.signedIn("ann", userID: "2"), bo = try stack.signedIn("bo", userID: "3")
            let cleo = try stack.signedIn("cleo", userID: "4")
            let team = try await RosterTeam.create(by: ann, employees: [bo, cleo])
            let saturday = CalendarDay.next(CalendarDay.saturday, atLeast: 3)
            let shift = try await team.once(on: saturday, worker: bo)
            let trade = try await team.offer(shift, on: saturday, by: bo)
            try await cleo.result("roster.take", ["trade_id": .integer(trade)])
            try await team.once(on: saturday, start: "12:00", end: "20:00", position: "Bar", worker: cleo)

            let approval = try await ann.call("roster.approve", ["trade_id": .integer(trade)])
            #expect(approval.error?.code == .failedPrecondition, "\(approval)")
            #expect(approval.error?.message.contains("nobody works two shifts at once") == true, "\(approval)")
            #expect(try await ann.result("roster.trade", ["trade_id": .integer(trade)])["trade"]?["state"] == "awaiting_approval")
            // Bo still works it; the manager declines instead.
            #expect(try await ann.result("roster.decline", ["trade_id": .integer(trade)])["state"] == "declined")
            let schedule = try await bo.result("roster.schedule", ["from": .string(saturday), "to": .string(saturday)])
            #expect(schedule["occurrences"]?.arrayValue?.map { $0["assignee"]?["user_id"] } == [.string(bo.userID)])
        }
    }

    @Test func anEmployeeTryingAManagersCommandIsDenied() async throws {
        try await TallyStack.with(workers: ["roster": 1]) { stack in
            let ann = try stack.signedIn("ann", userID: "2"), bo = try stack.signedIn("bo", userID: "3")
            let cleo = try stack.signedIn("cleo", userID: "4")
            let team = try await RosterTeam.create(by: ann, employees: [bo, cleo])
            let saturday = CalendarDay.next(CalendarDay.saturday, atLeast: 3)
            let shift = try await team.once(on: saturday, worker: bo)
            let trade = try await team.offer(shift, on: saturday, by: bo)
            try await cleo.result("roster.take", ["trade_id": .integer(trade)])

            let teamID: JSONValue = .integer(team.id)
            let attempts: [(String, JSONValue)] = [
                ("roster.add_shift", ["team_id": teamID, "date": .string(saturday), "start": "09:00", "end": "12:00", "position": "Bar"]),
                ("roster.approve", ["trade_id": .integer(trade)]),
                ("roster.create_invite", ["team_id": teamID]),
                ("roster.set_role", ["team_id": teamID, "user_id": .string(cleo.userID), "role": "manager"]),
                ("roster.update_team", ["team_id": teamID, "requires_approval": false]),
                ("roster.remove_shift", ["shift_id": .integer(shift)]),
            ]
            for (command, args) in attempts {
                let reply = try await bo.call(command, args)
                #expect(reply.error?.code == .permissionDenied, "\(command): \(reply)")
            }
            let denied = try await bo.call("roster.add_shift", attempts[0].1)
            #expect(denied.error?.message == "only a manager of team \(team.id) (Corner Store) may add shifts; you are an employee there. Ask one of its managers")
            #expect(try await ann.result("roster.trade", ["trade_id": .integer(trade)])["trade"]?["state"] == "awaiting_approval", "nothing changed")
        }
    }

    /// `roster.schedule` across the daylight-saving changes of 2026, as a client sees it.
    @Test func daylightSavingWeeksInAmsterdamAndNewYork() async throws {
        try await TallyStack.with(workers: ["roster": 1]) { stack in
            let ann = try stack.signedIn("ann", userID: "2"), bo = try stack.signedIn("bo", userID: "3")
            let cleo = try stack.signedIn("cleo", userID: "4")
            func schedule(_ team: RosterTeam, _ from: String, _ to: String) async throws -> [[String]] {
                let result = try await ann.result(
                    "roster.schedule", ["view": "team", "team_id": .integer(team.id), "from": .string(from), "to": .string(to)])
                return (result["occurrences"]?.arrayValue ?? []).map { occurrence in
                    ["date", "starts_at", "ends_at"].map { occurrence[$0]?.stringValue ?? "?" } + [String(occurrence["minutes"]?.intValue ?? -1)]
                }
            }

            let amsterdam = try await RosterTeam.create("Grachtenwinkel", zone: "Europe/Amsterdam", by: ann, employees: [bo])
            try await amsterdam.weekly("sunday", from: "2026-03-01", worker: bo)
            try await amsterdam.weekly("saturday", from: "2026-03-21", start: "22:00", end: "06:00", position: "Night", worker: ann)
            try await amsterdam.once(on: "2026-03-29", start: "02:30", end: "10:30", position: "Bakery", worker: nil)
            #expect(try await schedule(amsterdam, "2026-03-22", "2026-03-29") == [
                ["2026-03-22", "2026-03-22T09:00:00+01:00", "2026-03-22T17:00:00+01:00", "480"],
                // Across the change: an hour shorter, as worked.
                ["2026-03-28", "2026-03-28T22:00:00+01:00", "2026-03-29T06:00:00+02:00", "420"],
                // 02:30 does not happen that night: it starts as far after the gap as it was into it.
                ["2026-03-29", "2026-03-29T03:30:00+02:00", "2026-03-29T10:30:00+02:00", "420"],
                // 09:00 stays 09:00 local.
                ["2026-03-29", "2026-03-29T09:00:00+02:00", "2026-03-29T17:00:00+02:00", "480"],
            ])
            #expect(try await schedule(amsterdam, "2026-10-18", "2026-10-25") == [
                ["2026-10-18", "2026-10-18T09:00:00+02:00", "2026-10-18T17:00:00+02:00", "480"],
                ["2026-10-24", "2026-10-24T22:00:00+02:00", "2026-10-25T06:00:00+01:00", "540"],
                ["2026-10-25", "2026-10-25T09:00:00+01:00", "2026-10-25T17:00:00+01:00", "480"],
            ])

            let newYork = try await RosterTeam.create("Corner Deli", zone: "America/New_York", by: ann, employees: [cleo])
            try await newYork.weekly("sunday", from: "2026-03-01", worker: cleo)
            try await newYork.once(on: "2026-03-08", start: "02:30", end: "06:00", position: "Bakery", worker: nil)
            try await newYork.once(on: "2026-11-01", start: "01:30", end: "05:00", position: "Bakery", worker: nil)
            #expect(try await schedule(newYork, "2026-03-01", "2026-03-08") == [
                ["2026-03-01", "2026-03-01T09:00:00-05:00", "2026-03-01T17:00:00-05:00", "480"],
                ["2026-03-08", "2026-03-08T03:30:00-04:00", "2026-03-08T06:00:00-04:00", "150"],
                ["2026-03-08", "2026-03-08T09:00:00-04:00", "2026-03-08T17:00:00-04:00", "480"],
            ])
            #expect(try await schedule(newYork, "2026-10-25", "2026-11-01") == [
                ["2026-10-25", "2026-10-25T09:00:00-04:00", "2026-10-25T17:00:00-04:00", "480"],
                // 01:30 happens twice: the first, in summer time.
                ["2026-11-01", "2026-11-01T01:30:00-04:00", "2026-11-01T05:00:00-05:00", "270"],
                ["2026-11-01", "2026-11-01T09:00:00-05:00", "2026-11-01T17:00:00-05:00", "480"],
            ])
            // Cleo's own schedule, in her team's zone.
            let cleos = try await cleo.result("roster.schedule", ["from": "2026-03-08", "to": "2026-03-08"])
            #expect(cleos["occurrences"]?.arrayValue?.map { $0["starts_at"] } == ["2026-03-08T09:00:00-04:00"])
        }
    }
}
