import TallyProtocol
import Testing

@testable import TallyRoster

/// The marketplace's rules: who may trade what, nobody works two shifts at once (checked when
/// asked and again when approved), one trade per shift, a manager may act for anyone.
@Suite struct MarketTests {
    let ann = RosterHarness.ann, bo = RosterHarness.bo, cleo = RosterHarness.cleo, eve = RosterHarness.eve

    @Test func anOfferIsTakenAndApproved() throws {
        let harness = try RosterHarness()
        let team = try harness.team()
        let date = Day.from(today: 4)
        let shift = try harness.shift(team, on: date, worker: bo)
        let offered = try harness.call("roster.offer", ["shift_id": .integer(shift), "date": .string(date), "note": "Family visit"], as: bo)
        #expect(offered["state"] == "offered")
        #expect(offered["from"]?["user_id"] == "u-bo")
        #expect(offered["to"] == nil)
        #expect(offered["note"] == "Family visit")
        #expect(offered["shift"]?["date"] == .string(date))
        let trade = try #require(offered["id"]?.intValue)
        #expect(try harness.call("roster.market", ["team_id": .integer(team)], as: cleo)["offered"]?.arrayValue?.map { $0["id"] } == [.integer(trade)])

        let taken = try harness.trade(trade, "roster.take", as: cleo)
        #expect(taken["state"] == "awaiting_approval")
        #expect(taken["to"]?["display_name"] == "cleo")
        #expect(try harness.worker(team, shift: shift, on: date) == "u-bo", "nothing changes before approval")

        let approved = try harness.trade(trade, "roster.approve", as: ann)
        #expect(approved["state"] == "approved")
        #expect(try harness.worker(team, shift: shift, on: date) == "u-cleo")
        // On bo's own roster the shift shows as given away (the seed's red "sold").
        let mine = try harness.call("roster.schedule", ["from": .string(date), "to": .string(date)], as: bo)["occurrences"]?[0]
        #expect(mine?["assignee"]?["user_id"] == "u-cleo")
        #expect(mine?["scheduled_assignee"]?["user_id"] == "u-bo")
        let history = try harness.call("roster.trade", ["trade_id": .integer(trade)], as: bo)["history"]?.arrayValue ?? []
        #expect(history.map { $0["action"] } == ["create", "take", "approve"])
        #expect(history.map { $0["by"]?["user_id"] } == ["u-bo", "u-cleo", "u-ann"])
    }

    @Test func onlyTheWorkerOffersAndNobodyTakesTheirOwn() throws {
        let harness = try RosterHarness()
        let team = try harness.team()
        let date = Day.from(today: 4)
        let shift = try harness.shift(team, on: date, worker: bo)
        let notHers = harness.error("roster.offer", ["shift_id": .integer(shift), "date": .string(date)], as: cleo)
        #expect(notHers?.code == .permissionDenied)
        #expect(notHers?.message.contains("(bo) may offer it") == true)
        let trade = try harness.offer(shift, on: date, as: bo)
        #expect(harness.error("roster.take", ["trade_id": .integer(trade)], as: bo)?.code == .failedPrecondition)
        // One trade at a time per shift.
        let again = harness.error("roster.offer", ["shift_id": .integer(shift), "date": .string(date)], as: bo)
        #expect(again?.code == .failedPrecondition)
        #expect(again?.message.contains("already in trade \(trade) (offer, offered)") == true)
        // A date the shift does not occur on, and a shift of no team of the caller's.
        #expect(harness.error("roster.offer", ["shift_id": .integer(shift), "date": .string(Day.from(today: 5))], as: bo)?.code == .notFound)
        #expect(harness.error("roster.offer", ["shift_id": .integer(shift), "date": .string(date)], as: RosterHarness.dan)?.code == .notFound)
    }

    @Test func startedShiftsCannotBeTradedAndOpenOffersExpire() throws {
        let harness = try RosterHarness()
        let team = try harness.team()
        let yesterday = Day.from(today: -1)
        let past = try harness.shift(team, on: yesterday, worker: bo)
        let refused = harness.error("roster.offer", ["shift_id": .integer(past), "date": .string(yesterday)], as: bo)
        #expect(refused?.code == .failedPrecondition)
        #expect(refused?.message.contains("only shifts that have not started can be offered") == true)

        let date = Day.from(today: 3)
        let trade = try harness.offer(try harness.shift(team, on: date, worker: bo), on: date, as: bo)
        try harness.letShiftStart(of: trade)
        // Reads already say so; the next change that commits writes it down, in its transaction,
        // with its event (a refused change rolls its expiry back with it).
        #expect(try harness.state(of: trade) == "expired")
        #expect(try harness.call("roster.market", ["team_id": .integer(team)], as: cleo)["offered"] == [])
        let late = harness.error("roster.take", ["trade_id": .integer(trade)], as: cleo)
        #expect(late?.message == "trade \(trade) (offer) is expired; only a trade that is offered can be taken")
        #expect(try harness.events().filter { $0.type == "roster.trade_expired" }.isEmpty)
        try harness.shift(team, on: Day.from(today: 4), worker: bo)
        let expired = try harness.events().filter { $0.type == "roster.trade_expired" }
        #expect(expired.count == 1)
        #expect(expired.first?.data["notify"] == ["u-bo"])
        #expect(try harness.count("SELECT COUNT(*) FROM trade_claim") == 0)
    }

    @Test func nobodyTakesAShiftOverlappingTheirOwn() throws {
        let harness = try RosterHarness()
        let team = try harness.team()
        let date = Day.from(today: 4)
        try harness.shift(team, on: date, start: "12:00", end: "20:00", position: "Bar", worker: cleo)
        let trade = try harness.offer(try harness.shift(team, on: date, worker: bo), on: date, as: bo)
        let error = harness.error("roster.take", ["trade_id": .integer(trade)], as: cleo)
        #expect(error?.code == .failedPrecondition)
        #expect(error?.message.hasPrefix("cleo already works Bar on") == true)
        #expect(error?.message.contains("which overlaps Cashier") == true)
        #expect(try harness.state(of: trade) == "offered", "a refused take changes nothing")
        // Back to back is not overlapping.
        let evening = try harness.offer(try harness.shift(team, on: date, start: "20:00", end: "23:00", worker: bo), on: date, as: bo)
        #expect(try harness.trade(evening, "roster.take", as: cleo)["state"] == "awaiting_approval")
    }

    @Test func overlapsCountAcrossTeams() throws {
        let harness = try RosterHarness()
        let store = try harness.team("Corner Store")
        let cafe = try harness.team("Café", zone: "Europe/Amsterdam", members: [cleo])
        let date = Day.from(today: 4)
        // 09:00-17:00 UTC against 10:00-12:00 Amsterdam (08:00 or 09:00 UTC): they overlap.
        try harness.shift(cafe, on: date, start: "10:00", end: "12:00", position: "Barista", worker: cleo)
        let trade = try harness.offer(try harness.shift(store, on: date, worker: bo), on: date, as: bo)
        #expect(harness.error("roster.take", ["trade_id": .integer(trade)], as: cleo)?.message.contains("Barista") == true)
    }

    @Test func aManagerApprovingATakeThatNowOverlapsIsRefused() throws {
        let harness = try RosterHarness()
        let team = try harness.team()
        let date = Day.from(today: 4)
        let shift = try harness.shift(team, on: date, worker: bo)
        let trade = try harness.offer(shift, on: date, as: bo)
        try harness.trade(trade, "roster.take", as: cleo)
        // Meanwhile cleo was given an extra shift that day.
        try harness.shift(team, on: date, start: "15:00", end: "21:00", position: "Stock", worker: cleo)
        let error = harness.error("roster.approve", ["trade_id": .integer(trade)], as: ann)
        #expect(error?.code == .failedPrecondition)
        #expect(error?.message.contains("cleo already works Stock") == true)
        #expect(try harness.state(of: trade) == "awaiting_approval", "still waiting: the manager may decline it")
        #expect(try harness.worker(team, shift: shift, on: date) == "u-bo")
        #expect(try harness.trade(trade, "roster.decline", as: ann)["state"] == "declined")
    }

    @Test func approvalReChecksThatTheGiverStillWorksIt() throws {
        let harness = try RosterHarness()
        let team = try harness.team(members: [bo, cleo, eve])
        let date = Day.from(today: 4)
        let weekly = try harness.weekly(team, Day.today.adding(days: 4).weekday.name, from: Day.from(today: 1), worker: bo)
        let trade = try harness.offer(weekly, on: date, as: bo)
        try harness.trade(trade, "roster.take", as: cleo)
        // The manager may not reassign a shift with an open trade...
        let error = harness.error("roster.update_shift", ["shift_id": .integer(weekly), "assignee": "u-eve"], as: ann)
        #expect(error?.message.contains("has open trades") == true)
        // ...but a hand edit behind the service's back is caught at approval.
        try harness.execute("UPDATE shift SET assignee_user_id = 'u-eve'")
        let stale = harness.error("roster.approve", ["trade_id": .integer(trade)], as: ann)
        #expect(stale?.code == .failedPrecondition)
        #expect(stale?.message.contains("is no longer bo's") == true)
    }

    @Test func aManagerActsForAnEmployee() throws {
        let harness = try RosterHarness()
        let team = try harness.team()
        let date = Day.from(today: 4)
        let shift = try harness.shift(team, on: date, worker: bo)
        let offered = try harness.call(
            "roster.offer", ["shift_id": .integer(shift), "date": .string(date), "for_user_id": "u-bo"], as: ann)
        #expect(offered["from"]?["user_id"] == "u-bo")
        let trade = try #require(offered["id"])
        #expect(try harness.call("roster.take", ["trade_id": trade, "for_user_id": "u-cleo"], as: ann)["to"]?["user_id"] == "u-cleo")
        let events = try harness.events().filter { $0.type == "roster.shift_taken" }
        #expect(events.first?.data["by"] == "u-ann", "the event says who did it")
        #expect(try harness.call("roster.undo_take", ["trade_id": trade, "for_user_id": "u-cleo"], as: ann)["state"] == "offered")
        #expect(harness.error("roster.take", ["trade_id": trade, "for_user_id": "u-dan"], as: ann)?.code == .notFound, "not a member")
    }

    @Test func withoutApprovalATakeChangesTheRosterAtOnce() throws {
        let harness = try RosterHarness()
        let team = try harness.team(approval: false)
        let date = Day.from(today: 4)
        let shift = try harness.shift(team, on: date, worker: bo)
        let trade = try harness.offer(shift, on: date, as: bo)
        #expect(try harness.trade(trade, "roster.take", as: cleo)["state"] == "approved")
        #expect(try harness.worker(team, shift: shift, on: date) == "u-cleo")
        let types = try harness.events().map(\.type).filter { $0.hasPrefix("roster.shift_taken") || $0 == "roster.change_approved" }
        #expect(types == ["roster.shift_taken", "roster.change_approved"])
        #expect(harness.error("roster.undo_take", ["trade_id": .integer(trade)], as: cleo)?.code == .failedPrecondition)
    }

    @Test func volunteersFillOpenShifts() throws {
        let harness = try RosterHarness()
        let team = try harness.team(members: [bo, cleo, eve])
        let date = Day.from(today: 4)
        let open = try harness.shift(team, on: date, worker: nil)
        let market = try harness.call("roster.market", ["team_id": .integer(team)], as: cleo)
        #expect(market["wanted"]?.arrayValue?.map { $0["shift_id"] } == [.integer(open)])
        #expect(market["wanted"]?[0]?["status"] == "open")
        let volunteered = try harness.call("roster.volunteer", ["shift_id": .integer(open), "date": .string(date)], as: cleo)
        #expect(volunteered["kind"] == "wanted")
        #expect(volunteered["state"] == "awaiting_approval")
        #expect(volunteered["from"] == nil)
        // One volunteer at a time waits for the manager.
        #expect(harness.error("roster.volunteer", ["shift_id": .integer(open), "date": .string(date)], as: eve)?.code == .failedPrecondition)
        try harness.trade(try #require(volunteered["id"]?.intValue), "roster.approve", as: ann)
        #expect(try harness.worker(team, shift: open, on: date) == "u-cleo")
        let taken = harness.error("roster.volunteer", ["shift_id": .integer(open), "date": .string(date)], as: eve)
        #expect(taken?.message.contains("is not open: cleo works it") == true)
        // A shift someone works cannot be volunteered for; it is offered or swapped.
        let bos = try harness.shift(team, on: Day.from(today: 5), worker: bo)
        #expect(harness.error("roster.volunteer", ["shift_id": .integer(bos), "date": .string(Day.from(today: 5))], as: eve)?.code == .failedPrecondition)
    }

    @Test func twoPeopleSwapShifts() throws {
        let harness = try RosterHarness()
        let team = try harness.team(members: [bo, cleo, eve])
        let saturday = Day.from(today: 4)
        let sunday = Day.from(today: 5)
        let mine = try harness.shift(team, on: saturday, worker: bo)
        let theirs = try harness.shift(team, on: sunday, position: "Bar", worker: cleo)
        let args: JSONValue = ["shift_id": .integer(mine), "date": .string(saturday), "with_shift_id": .integer(theirs), "with_date": .string(sunday)]
        let proposed = try harness.call("roster.propose_swap", args, as: bo)
        #expect(proposed["state"] == "requested")
        #expect(proposed["with_shift"]?["position"] == "Bar")
        #expect(proposed["to"]?["user_id"] == "u-cleo")
        let trade = try #require(proposed["id"]?.intValue)
        // Only the colleague asked may accept; eve may not, and is told who may.
        let notAsked = harness.error("roster.accept_swap", ["trade_id": .integer(trade)], as: eve)
        #expect(notAsked?.code == .permissionDenied)
        #expect(notAsked?.message == "only the colleague asked to swap (cleo) may accept trade \(trade), or a manager for them")
        #expect(try harness.trade(trade, "roster.accept_swap", as: cleo)["state"] == "awaiting_approval")
        #expect(try harness.trade(trade, "roster.approve", as: ann)["state"] == "approved")
        #expect(try harness.worker(team, shift: mine, on: saturday) == "u-cleo")
        #expect(try harness.worker(team, shift: theirs, on: sunday) == "u-bo")
        let events = try harness.events().map(\.type).filter { $0.contains("swap") || $0.contains("approv") }
        #expect(events == ["roster.swap_requested", "roster.swap_accepted", "roster.approval_requested", "roster.change_approved"])
    }

    @Test func theColleagueAskedMayDeclineASwap() throws {
        let harness = try RosterHarness()
        let team = try harness.team(members: [bo, cleo, eve])
        let day = Day.from(today: 4)
        let mine = try harness.shift(team, on: day, start: "06:00", end: "10:00", worker: bo)
        let theirs = try harness.shift(team, on: day, start: "12:00", end: "16:00", worker: cleo)
        let trade = try #require(harness.call(
            "roster.propose_swap",
            ["shift_id": .integer(mine), "date": .string(day), "with_shift_id": .integer(theirs), "with_date": .string(day)], as: bo)["id"]?.intValue)
        #expect(harness.error("roster.decline", ["trade_id": .integer(trade)], as: eve)?.code == .permissionDenied)
        #expect(try harness.trade(trade, "roster.decline", as: cleo)["state"] == "declined")
        let declined = try harness.events().last { $0.type == "roster.change_declined" }
        #expect(declined?.data["notify"] == ["u-bo"], "the one who declined is not told")
    }

    @Test func retriesWithAKeyRunOnce() throws {
        let harness = try RosterHarness()
        let team = try harness.team(members: [bo, cleo, eve])
        let date = Day.from(today: 4)
        let shift = try harness.shift(team, on: date, worker: bo)
        let args: JSONValue = ["shift_id": .integer(shift), "date": .string(date)]
        let first = try harness.call("roster.offer", args, as: bo, key: "offer-1")
        #expect(try harness.call("roster.offer", args, as: bo, key: "offer-1") == first)
        let trade: JSONValue = ["trade_id": try #require(first["id"])]
        let taken = try harness.call("roster.take", trade, as: cleo, key: "take-1")
        #expect(try harness.call("roster.take", trade, as: cleo, key: "take-1") == taken, "the stored answer, not 'already taken'")
        // Keys are the caller's own: eve's same key is her own request, refused on its merits.
        #expect(harness.error("roster.take", trade, as: eve, key: "take-1")?.code == .failedPrecondition)
        #expect(try harness.count("SELECT COUNT(*) FROM trade") == 1)
        #expect(try harness.events().filter { $0.type == "roster.shift_taken" }.count == 1)
        // A key reused for another request is refused.
        #expect(harness.error("roster.offer", ["shift_id": .integer(shift), "date": .string(Day.from(today: 5))], as: bo, key: "offer-1")?.field
            == "idempotency_key")
        // A retried approval changes the roster, and awards the points, once.
        let approved = try harness.call("roster.approve", trade, as: ann, key: "approve-1")
        #expect(try harness.call("roster.approve", trade, as: ann, key: "approve-1") == approved)
        #expect(try harness.count("SELECT COUNT(*) FROM point_entry") == 1)
        #expect(try harness.events().filter { $0.type == "roster.change_approved" }.count == 1)
    }

    @Test func eventsSayWhomToNotify() throws {
        let harness = try RosterHarness()
        let team = try harness.team(members: [bo, cleo, eve])
        try harness.join(team, RosterHarness.dan, role: "manager")
        let date = Day.from(today: 4)
        // eve is busy then, so the offer is not one she could take.
        try harness.shift(team, on: date, start: "08:00", end: "10:00", worker: eve)
        let trade = try harness.offer(try harness.shift(team, on: date, worker: bo), on: date, as: bo)
        let offered = try #require(harness.events().last { $0.type == "roster.shift_offered" })
        #expect(offered.data["notify"] == ["u-ann", "u-cleo", "u-dan"])
        #expect(offered.subject == "\(team)/trades/\(trade)")
        try harness.trade(trade, "roster.take", as: cleo)
        #expect(try harness.events().last { $0.type == "roster.shift_taken" }?.data["notify"] == ["u-bo"])
        #expect(try harness.events().last { $0.type == "roster.approval_requested" }?.data["notify"] == ["u-ann", "u-dan"])
        try harness.trade(trade, "roster.approve", as: RosterHarness.dan)
        let approved = try #require(harness.events().last { $0.type == "roster.change_approved" })
        #expect(approved.data["notify"] == ["u-bo", "u-cleo"])
        #expect(approved.data["by"] == "u-dan")
        #expect(approved.data["team"]?["name"] == "Corner Store")
    }
}
