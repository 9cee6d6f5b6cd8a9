import Foundation
import TallyProtocol
import TallyTesting
import Testing

/// The story with every real part, each a process: a gateway, identity, roster and
/// shopping workers, the notifier, and one `tally watch` per person, signed in with `tally login`.
/// Three people sign up; Ann manages the team, Bo and Cleo work in it; Dan is in no team. Bo
/// offers a Saturday shift, Cleo takes it, Ann approves, and "shift approved" reaches the watches
/// of Bo and Cleo exactly once and neither Ann's nor Dan's.
@Suite struct TeamWeekEndToEndTests {
    @Test func aWeekOfATeamsLife() async throws {
        try await TallyStack.with(workers: ["identity": 1, "roster": 1, "shopping": 1]) { stack in
            try await stack.startNotifier()
            // Monday: they sign up, and each signs in on the command line.
            let ann = try await stack.signedUp("ann"), bo = try await stack.signedUp("bo")
            let cleo = try await stack.signedUp("cleo"), dan = try await stack.signedUp("dan")
            var started: [String: TallyProcess] = [:]
            for person in [ann, bo, cleo, dan] {
                let environment = try await stack.logInWithTheCommandLine(person.username)
                started[person.username] = try stack.startWatch(["--since", "0"], token: nil, environment: environment)
            }
            let watches = started
            for watch in watches.values { try await watch.waitUntilReady() }

            // Ann starts the team and the weekly schedule: Bo on Saturdays, Cleo on Sundays.
            let team = try await RosterTeam.create(by: ann, employees: [bo, cleo])
            let from = CalendarDay.from(today: -21)
            let saturday = try await team.weekly("saturday", from: from, worker: bo)
            let sunday = try await team.weekly("sunday", from: from, start: "10:00", end: "16:00", worker: cleo)

            // Tuesday: Bo offers the coming Saturday; Wednesday: Cleo takes it; Thursday: Ann approves.
            let nextSaturday = CalendarDay.next(CalendarDay.saturday, atLeast: 3)
            let trade = try await team.offer(saturday, on: nextSaturday, by: bo)
            #expect(try await cleo.result("roster.take", ["trade_id": .integer(trade)])["state"] == "awaiting_approval")
            #expect(try await ann.result("roster.approve", ["trade_id": .integer(trade)])["state"] == "approved")

            let bosWatch = try #require(watches["bo"]), cleosWatch = try #require(watches["cleo"])
            try await stack.waitUntil("shift approved reaches Bo's and Cleo's watches", timeout: .seconds(60)) {
                !watched("shift_approved", bosWatch).isEmpty && !watched("shift_approved", cleosWatch).isEmpty
            }
            // Fences: a later alert for each watch. The notifier stores alerts in order, and a
            // watch shows its alerts in order, so once a watch shows its fence, a second (or a
            // misdirected) "shift approved" would already be there. Cleo offers next Sunday (Ann
            // and Bo could take it), Bo the Saturday after (Ann and Cleo), and Dan, in no team,
            // pays more for milk.
            try await team.offer(sunday, on: CalendarDay.next(CalendarDay.sunday, atLeast: 3), by: cleo)
            let laterSaturday = CalendarDay.next(CalendarDay.saturday, atLeast: 10)
            try await team.offer(saturday, on: laterSaturday, by: bo)
            for price in ["1.19", "1.29"] {
                let list = try await dan.result("shopping.create_list", ["kind": "shopping", "name": .string("Milk at \(price)"), "currency": "EUR"])
                let item = try await dan.result("shopping.add_item", ["list_id": list["id"] ?? .null, "name": "Milk"])
                try await dan.result(
                    "shopping.mark_purchased", ["list_id": list["id"] ?? .null, "item_id": item["item"]?["id"] ?? .null, "unit_price": .string(price)])
            }
            let fences: [String: @Sendable (JSONValue) -> Bool] = [
                "ann": { $0["kind"] == "shift_offered" && $0["text"]?.stringValue?.hasPrefix("Cleo offers") == true },
                "bo": { $0["kind"] == "shift_offered" && $0["text"]?.stringValue?.hasPrefix("Cleo offers") == true },
                "cleo": { $0["kind"] == "shift_offered" && $0["text"]?.stringValue?.contains(laterSaturday) == true },
                "dan": { $0["kind"] == "price_higher" },
            ]
            try await stack.waitUntil("every watch shows its fence", timeout: .seconds(60)) {
                fences.allSatisfy { name, isFence in watchedAlerts(watches[name]!).contains(where: isFence) }
            }

            let text = "Shift change approved: Cleo takes Bo's shift Cashier on Saturday \(nextSaturday), 09:00–17:00 at Corner Store"
            for person in [bo, cleo] {
                let approved = watched("shift_approved", watches[person.username]!)
                #expect(approved.map { $0["text"] } == [.string(text)], "\(person.username): \(approved)")
                #expect(approved.first?["owner"] == .string(person.userID))
            }
            for person in [ann, dan] {
                #expect(watched("shift_approved", watches[person.username]!).isEmpty, "\(person.username)")
            }
            // Every watch showed only its own person's alerts.
            for person in [ann, bo, cleo, dan] {
                let alerts = watchedAlerts(watches[person.username]!)
                #expect(alerts.allSatisfy { $0["owner"] == .string(person.userID) }, "\(person.username): \(alerts)")
            }
            // Ann was asked to approve.
            #expect(watched("approval_requested", watches["ann"]!).count == 1)

            // The leaderboard: Cleo covered Bo's Saturday.
            let board = try await bo.result(
                "roster.leaderboard", ["team_id": .integer(team.id), "from": .string(nextSaturday), "to": .string(nextSaturday)])
            #expect(board["entries"]?[0]?["user_id"] == .string(cleo.userID), "\(board)")
            #expect(board["entries"]?[0]?["points"] == 10)

            // Friday: hours of last weekend.
            let lastSaturday = CalendarDay.last(CalendarDay.saturday, atLeast: 2)
            let lastSunday = CalendarDay.last(CalendarDay.sunday, atLeast: 2)
            try await bo.result("roster.record_hours", ["shift_id": .integer(saturday), "date": .string(lastSaturday), "minutes": 495])
            try await cleo.result("roster.record_hours", ["shift_id": .integer(sunday), "date": .string(lastSunday), "minutes": 360])
            let hours = try await ann.result(
                "roster.hours", ["team_id": .integer(team.id), "from": .string(CalendarDay.from(today: -9)), "to": .string(CalendarDay.from(today: 0))])
            #expect(hours["people"]?.arrayValue?.map { [$0["display_name"], $0["minutes"]] } == [["Bo", 495], ["Cleo", 360]], "\(hours)")
        }
    }
}

extension TallyStack {
    /// Logs `username` in with `tally login`, into a configuration directory of their own, and
    /// returns the environment a `tally` command run as them needs (`XDG_CONFIG_HOME`).
    func logInWithTheCommandLine(_ username: String, password: String = "correct horse battery staple") async throws -> [String: String] {
        let environment = ["XDG_CONFIG_HOME": directory.appendingPathComponent("config-\(username)").path]
        let login = try launch(
            "login", ["login", username, "--password-stdin", "--endpoint", frontend, "--timeout-ms", "30000"], environment: environment,
            input: Data("\(password)\n".utf8))
        guard await login.waitForExit(timeout: .seconds(90)), login.exitStatus == 0 else {
            throw StackError.refused(command: "tally login \(username)", reply: login.log)
        }
        return environment
    }
}
