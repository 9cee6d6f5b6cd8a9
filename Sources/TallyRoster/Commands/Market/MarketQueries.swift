import TallyProtocol
import TallyStorage

/// `roster.market`: a team's marketplace — what is offered (aangeboden), which shifts are open
/// and wanted (gezocht), which swaps wait for an answer, and what waits for a manager.
enum MarketCommand {
    /// Open shifts are listed four weeks ahead unless asked otherwise.
    static let defaultDays = 28
    static let longestRange = 92

    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: RosterStore) throws -> MarketResult {
        try TeamPeriodQuery.read(args, caller, store, longest: longestRange, defaults: { $0...$0.adding(days: defaultDays - 1) }) { session, query in
            let (team, people, now) = (query.team, query.people, query.now)
            let open = try Trade.inTeam(session, teamID: team.id, states: TradeState.open).filter { $0.state(at: now).isOpen }
            func trades(_ state: TradeState) throws -> [TradeResult] {
                try open.filter { $0.state == state }.map { try $0.result(session, team: team, people: people) }
            }
            let wanted = try ScheduleReader.occurrences(session, teams: [team], dates: query.dates)
                .filter { $0.assignee == nil && $0.openTrade == nil && $0.slot.startsAt > now }
            return MarketResult(
                offered: try trades(.offered), wanted: wanted.map { $0.result(people) }, requested: try trades(.requested),
                awaitingApproval: try trades(.awaitingApproval))
        }
    }
}

struct MarketResult: Encodable, Sendable {
    /// Offers waiting for a taker, oldest first.
    let offered: [TradeResult]
    /// Open shifts nobody has volunteered for yet, in order of start.
    let wanted: [OccurrenceResult]
    /// Swaps waiting for the colleague's answer.
    let requested: [TradeResult]
    /// Agreed changes waiting for a manager.
    let awaitingApproval: [TradeResult]
}

/// `roster.trade`: one trade and its history.
enum GetTradeCommand {
    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: RosterStore) throws -> TradeDetailResult {
        try args.allowOnly(["trade_id"])
        let tradeID = try args.id("trade_id", of: "a trade of one of your teams")
        return try store.read { session in
            guard let trade = try Trade.find(session, id: tradeID),
                try Member.active(session, teamID: trade.teamID, userID: caller.userID) != nil
            else { throw TallyError(.notFound, "none of your teams has a trade \(tradeID)", field: args.field("trade_id")) }
            let team = try TeamAccess.member(session, teamID: trade.teamID, caller: caller).team
            let people = try Member.names(session, teamIDs: [team.id])
            let history = try session.fetchAll(
                "SELECT action, from_state, to_state, by_user_id, at FROM trade_history WHERE trade_id = \(trade.id) ORDER BY id"
            ).map { row in
                TradeHistoryResult(
                    action: try row["action"], fromState: try row["from_state"], toState: try row["to_state"],
                    by: people.person(try row["by_user_id"] as String?), at: Timestamp.rfc3339(try row["at"]))
            }
            return TradeDetailResult(trade: try trade.result(session, team: team, people: people), history: history)
        }
    }
}

struct TradeDetailResult: Encodable, Sendable {
    let trade: TradeResult
    /// Every transition, oldest first.
    let history: [TradeHistoryResult]
}

struct TradeHistoryResult: Encodable, Sendable {
    let action: String
    /// Absent for `create`.
    let fromState: String?
    let toState: String
    /// Who did it; absent when the service did (expiry).
    let by: PersonResult?
    let at: String
}
