import TallyNotifier
import TallyProtocol
import Testing

/// The roster's alerts: one per user id in the event's `data.notify`, with text from its trade.
@Suite struct RosterRuleTests {
    static let saturday: JSONValue = [
        "shift_id": 3, "team_id": 1, "date": "2030-03-30", "weekday": "saturday", "starts_at": "2030-03-30T09:00:00+01:00",
        "ends_at": "2030-03-30T17:00:00+01:00", "time_zone": "Europe/Amsterdam", "minutes": 480, "position": "Cashier",
    ]
    static let sunday: JSONValue = [
        "shift_id": 4, "team_id": 1, "date": "2030-03-31", "weekday": "sunday", "starts_at": "2030-03-31T10:00:00+02:00",
        "ends_at": "2030-03-31T16:00:00+02:00", "time_zone": "Europe/Amsterdam", "minutes": 360, "position": "Bar",
    ]

    private func event(_ type: String, kind: String = "offer", to: Bool = true, notify: [JSONValue]) -> CloudEvent {
        var trade: [String: JSONValue] = [
            "id": 5, "team_id": 1, "kind": .string(kind), "state": "approved", "shift": Self.saturday,
            "from": ["user_id": "u-bo", "display_name": "Bo"], "created_at": "t", "updated_at": "t",
        ]
        if to { trade["to"] = ["user_id": "u-cleo", "display_name": "Cleo"] }
        if kind == "swap" { trade["with_shift"] = Self.sunday }
        if kind == "wanted" { trade["from"] = nil }
        return CloudEvent(
            id: "e-\(type)", source: "tally/roster", type: type, time: "2030-03-20T10:00:00.000Z", subject: "1/trades/5", sequence: 9,
            data: ["team": ["id": 1, "name": "Corner Store"], "trade": .object(trade), "by": "u-ann", "notify": .array(notify)])
    }

    @Test func anApprovalReachesBothPeopleOnce() {
        let alerts = AlertRules.alerts(for: event("roster.change_approved", notify: ["u-cleo", "u-bo", "u-bo"]))
        let text = "Shift change approved: Cleo takes Bo's shift Cashier on Saturday 2030-03-30, 09:00–17:00 at Corner Store"
        #expect(alerts.map(\.owner) == ["u-bo", "u-cleo"])
        #expect(alerts.allSatisfy { $0.kind == "shift_approved" && $0.text == text })
        #expect(alerts.first?.data["trade"]?["id"] == 5)
    }

    @Test func aDeclineReachesThePeopleInvolved() {
        let alerts = AlertRules.alerts(for: event("roster.change_declined", kind: "swap", notify: ["u-bo"]))
        #expect(alerts == [AlertDraft(
            kind: "shift_declined", owner: "u-bo",
            text: "Shift change declined: Bo and Cleo swap Cashier on Saturday 2030-03-30, 09:00–17:00 at Corner Store for Bar on Sunday 2030-03-31, 10:00–16:00 at Corner Store",
            data: event("roster.change_declined", kind: "swap", notify: ["u-bo"]).data)])
    }

    @Test func anOfferReachesTheColleaguesWhoCouldTakeIt() {
        let alerts = AlertRules.alerts(for: event("roster.shift_offered", to: false, notify: ["u-ann", "u-cleo"]))
        #expect(alerts.map(\.owner) == ["u-ann", "u-cleo"])
        #expect(alerts.first?.kind == "shift_offered")
        #expect(alerts.first?.text == "Bo offers a shift you could take: Cashier on Saturday 2030-03-30, 09:00–17:00 at Corner Store")
    }

    @Test func managersAreAskedToApprove() {
        let alerts = AlertRules.alerts(for: event("roster.approval_requested", kind: "wanted", notify: ["u-ann", "u-dan"]))
        #expect(alerts.map(\.owner) == ["u-ann", "u-dan"])
        #expect(alerts.first?.kind == "approval_requested")
        #expect(alerts.first?.text == "Waiting for your approval: Cleo works the open shift Cashier on Saturday 2030-03-30, 09:00–17:00 at Corner Store")
    }

    @Test func aSwapProposalReachesTheColleagueAsked() {
        let alerts = AlertRules.alerts(for: event("roster.swap_requested", kind: "swap", notify: ["u-cleo"]))
        #expect(alerts.map(\.owner) == ["u-cleo"])
        #expect(alerts.first?.text
            == "Bo proposes a swap: your Bar on Sunday 2030-03-31, 10:00–16:00 at Corner Store for their Cashier on Saturday 2030-03-30, 09:00–17:00 at Corner Store")
    }

    @Test func noRecipientsOrNoTradeMeansNoAlert() {
        #expect(AlertRules.alerts(for: event("roster.change_approved", notify: [])).isEmpty)
        var broken = event("roster.change_approved", notify: ["u-bo"])
        broken.data = ["notify": ["u-bo"]]
        #expect(AlertRules.alerts(for: broken).isEmpty)
        // Events without a rule give no alert, whatever they notify.
        #expect(AlertRules.alerts(for: event("roster.shift_taken", notify: ["u-bo"])).isEmpty)
    }
}
