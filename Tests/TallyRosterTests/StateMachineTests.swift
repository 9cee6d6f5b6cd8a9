import TallyProtocol
import Testing

@testable import TallyRoster

/// Every transition of the trade state machine, from every state a trade of each kind can reach,
/// through the commands; and the machine's table itself, with and without approval.
@Suite struct StateMachineTests {
    static let actions = ["take", "accept", "undo", "withdraw", "approve", "decline"]

    /// Where each action leads, in a team that requires approval; absent: refused.
    static let approvalTable: [String: [String: [String: String]]] = [
        "offer": [
            "offered": ["take": "awaiting_approval", "withdraw": "withdrawn", "decline": "declined", "expire": "expired"],
            "awaiting_approval": [
                "approve": "approved", "decline": "declined", "withdraw": "withdrawn", "undo": "offered", "expire": "expired",
            ],
        ],
        "swap": [
            "requested": ["accept": "awaiting_approval", "withdraw": "withdrawn", "decline": "declined", "expire": "expired"],
            "awaiting_approval": [
                "approve": "approved", "decline": "declined", "withdraw": "withdrawn", "undo": "requested", "expire": "expired",
            ],
        ],
        "wanted": [
            "awaiting_approval": ["approve": "approved", "decline": "declined", "withdraw": "withdrawn", "expire": "expired"]
        ],
    ]

    /// The states a trade of each kind can be in.
    static let reachable: [String: [String]] = [
        "offer": ["offered", "awaiting_approval", "approved", "declined", "withdrawn", "expired"],
        "swap": ["requested", "awaiting_approval", "approved", "declined", "withdrawn", "expired"],
        "wanted": ["awaiting_approval", "approved", "declined", "withdrawn", "expired"],
    ]

    struct Start: Sendable, CustomTestStringConvertible {
        let kind: String
        let state: String
        var testDescription: String { "\(kind) \(state)" }
    }

    static let starts = reachable.sorted { $0.key < $1.key }.flatMap { kind, states in states.map { Start(kind: kind, state: $0) } }

    @Test func theMachineIsTheDocumentedTable() throws {
        for kind in TradeKind.allCases {
            for state in TradeState.allCases {
                for action in TradeAction.allCases where action != .create {
                    for requiresApproval in [true, false] {
                        var expected = Self.approvalTable[kind.rawValue]?[state.rawValue]?[action.rawValue]
                        if !requiresApproval && expected == "awaiting_approval" { expected = "approved" }
                        let actual = try? TradeStateMachine.next(kind, from: state, action, requiresApproval: requiresApproval)
                        #expect(actual?.rawValue == expected, "\(kind) \(state) \(action) approval: \(requiresApproval)")
                    }
                }
            }
            let created = try TradeStateMachine.next(kind, from: nil, .create, requiresApproval: true)
            #expect(created == [.offer: .offered, .swap: .requested, .wanted: .awaitingApproval][kind])
            #expect(try TradeStateMachine.next(kind, from: nil, .create, requiresApproval: false) == (kind == .wanted ? .approved : created))
        }
    }

    @Test func aRefusalSaysTheState() {
        #expect(throws: TallyError(
            .failedPrecondition, "trade 7 (offer) is approved; only a trade that is offered can be taken"
        )) { try TradeStateMachine.next(.offer, from: .approved, .take, requiresApproval: true, tradeID: 7) }
        #expect(throws: TallyError(.failedPrecondition, "trade 7 (wanted) is awaiting approval; wanted trades cannot be undone")) {
            try TradeStateMachine.next(.wanted, from: .awaitingApproval, .undo, requiresApproval: true, tradeID: 7)
        }
    }

    @Test(arguments: starts) func everyActionFrom(_ start: Start) throws {
        let harness = try RosterHarness()
        let team = try harness.team(members: [RosterHarness.bo, RosterHarness.cleo, RosterHarness.eve])
        for (index, action) in Self.actions.enumerated() {
            let scenario = try Scenario(start.kind, in: start.state, harness, team: team, day: 2 + index)
            let expected = Self.approvalTable[start.kind]?[start.state]?[action]
            let args: JSONValue = ["trade_id": .integer(scenario.trade)]
            let actor = scenario.actor(for: action)
            if let expected {
                let result = try harness.call("roster.\(Scenario.command[action]!)", args, as: actor)
                #expect(result["state"]?.stringValue == expected, "\(start.testDescription) \(action)")
            } else {
                let error = harness.error("roster.\(Scenario.command[action]!)", args, as: actor)
                #expect(error?.code == .failedPrecondition, "\(start.testDescription) \(action): \(String(describing: error))")
                #expect(
                    error?.message.contains("(\(start.kind)) is \(start.state.replacingOccurrences(of: "_", with: " "))") == true,
                    "\(start.testDescription) \(action): \(String(describing: error))")
            }
        }
    }
}

/// A trade of one kind brought into one state through the commands, on its own day, so scenarios
/// in one team never overlap: bo gives (offer, swap), cleo receives (takes, is asked to swap,
/// volunteers), ann manages.
struct Scenario {
    static let command = [
        "take": "take", "accept": "accept_swap", "undo": "undo_take", "withdraw": "withdraw", "approve": "approve", "decline": "decline",
    ]

    let trade: Int64
    let initiator: Caller

    init(_ kind: String, in state: String, _ harness: RosterHarness, team: Int64, day: Int) throws {
        let (ann, bo, cleo) = (RosterHarness.ann, RosterHarness.bo, RosterHarness.cleo)
        let date = Day.from(today: day)
        switch kind {
        case "offer":
            let shift = try harness.shift(team, on: date, worker: bo)
            trade = try harness.offer(shift, on: date, as: bo)
            initiator = bo
            if ["awaiting_approval", "approved"].contains(state) { try harness.trade(trade, "roster.take", as: cleo) }
        case "swap":
            let mine = try harness.shift(team, on: date, start: "06:00", end: "10:00", worker: bo)
            let theirs = try harness.shift(team, on: date, start: "18:00", end: "22:00", worker: cleo)
            trade = try #require(harness.call(
                "roster.propose_swap",
                ["shift_id": .integer(mine), "date": .string(date), "with_shift_id": .integer(theirs), "with_date": .string(date)], as: bo
            )["id"]?.intValue)
            initiator = bo
            if ["awaiting_approval", "approved"].contains(state) { try harness.trade(trade, "roster.accept_swap", as: cleo) }
        default:
            let shift = try harness.shift(team, on: date, worker: nil)
            trade = try #require(harness.call("roster.volunteer", ["shift_id": .integer(shift), "date": .string(date)], as: cleo)["id"]?.intValue)
            initiator = cleo
        }
        switch state {
        case "approved": try harness.trade(trade, "roster.approve", as: ann)
        case "declined": try harness.trade(trade, "roster.decline", as: ann)
        case "withdrawn": try harness.trade(trade, "roster.withdraw", as: initiator)
        case "expired": try harness.letShiftStart(of: trade)
        default: break
        }
        #expect(try harness.state(of: trade) == state, "setting up \(kind) \(state)")
    }

    /// Who may do `action`, were the state right for it.
    func actor(for action: String) -> Caller {
        switch action {
        case "withdraw": initiator
        case "approve", "decline": RosterHarness.ann
        default: RosterHarness.cleo
        }
    }
}
