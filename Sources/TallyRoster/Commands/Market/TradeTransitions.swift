import TallyProtocol
import TallyStorage

/// The only code that writes a trade's state. It asks `TradeStateMachine` where an action
/// leads, writes the move with an UPDATE conditional on the state it comes from (so of two
/// requests racing for one offer exactly one moves it; the other finds it moved and is told its
/// state), keeps the history, releases the trade's shifts when it ends, settles it into the
/// roster when it is approved, and records its events with whom to notify.
enum TradeTransitions {
    /// What an action does to the trade's receiver.
    enum Receiver {
        case keep
        /// A taker takes the offer: they become its receiver, as of now.
        case set(String)
        /// A taker undoes their take: the offer waits for a taker again.
        case clear
    }

    /// Starts a trade: stores it in the state the machine gives `create`, holds its occurrences
    /// (each is in at most one open trade), and settles it at once when it needs nobody else (a
    /// volunteer where no approval is required).
    static func create(
        _ kind: TradeKind, team: Team, occurrence: Occurrence, other: Occurrence?, from: String?, to: String?, note: String?,
        by actor: String, _ change: inout Change, people: PeopleDirectory
    ) throws -> Trade {
        let state = try TradeStateMachine.next(kind, from: nil, .create, requiresApproval: team.requiresApproval)
        let trade = try Trade.insert(
            change.session, teamID: team.id, kind: kind, state: state, occurrence: occurrence.slot, other: other?.slot,
            fromUserID: from, toUserID: to, note: note, createdBy: actor, at: change.now)
        for held in [occurrence] + (other.map { [$0] } ?? []) {
            try claim(held, for: trade, change.session)
        }
        try history(trade.id, .create, from: nil, to: state, by: actor, at: change.now, change.session)
        try settle(trade, after: .create, team: team, &change, people: people)
        try record(.create, trade, team: team, by: actor, &change, people: people)
        return trade
    }

    /// Applies `action` to `trade` as `actor`, and returns the trade as it is now; refuses
    /// (`failed_precondition`, saying the trade's state) when the action does not apply to it,
    /// also when another request moved it first.
    @discardableResult
    static func apply(
        _ action: TradeAction, to trade: Trade, team: Team, by actor: String, receiver: Receiver = .keep, _ change: inout Change,
        people: PeopleDirectory
    ) throws -> Trade {
        guard let moved = try move(action, trade, team: team, by: actor, receiver: receiver, &change, people: people) else {
            throw try movedMeanwhile(trade, action, team: team, change.session)
        }
        return moved
    }

    /// Moves every open trade whose first shift has started to `expired`, recording each: run at
    /// the start of every roster change, in its transaction (see `RosterStore.init`), so no change
    /// acts on a trade that is out of date.
    static func expireStarted(_ change: inout Change) throws {
        let due = try change.session.fetchAll("""
            SELECT \(Trade.columns) FROM trade
            WHERE state IN (\(list: TradeState.open.map(\.rawValue))) AND starts_at <= \(timestamp: change.now)
            ORDER BY id
            """).map(Trade.init(row:))
        for trade in due {
            guard let team = try Team.find(change.session, id: trade.teamID) else { continue }
            // Another request may have expired it first: then there is nothing left to do.
            _ = try move(.expire, trade, team: team, by: nil, receiver: .keep, &change, people: try Member.names(change.session, teamIDs: [team.id]))
        }
    }

    /// The transition itself; nil when the conditional UPDATE found the trade already moved.
    private static func move(
        _ action: TradeAction, _ trade: Trade, team: Team, by actor: String?, receiver: Receiver, _ change: inout Change,
        people: PeopleDirectory
    ) throws -> Trade? {
        let target = try TradeStateMachine.next(trade.kind, from: trade.state, action, requiresApproval: team.requiresApproval, tradeID: trade.id)
        var moved = trade
        moved.state = target
        moved.updatedAt = change.now
        switch receiver {
        case .keep: break
        case .set(let userID):
            moved.toUserID = userID
            moved.claimedAt = change.now
        case .clear:
            moved.toUserID = nil
            moved.claimedAt = nil
        }
        let changed = try change.session.execute("""
            UPDATE trade SET state = \(target.rawValue), to_user_id = \(moved.toUserID), claimed_at = \(timestamp: moved.claimedAt),
                updated_at = \(timestamp: change.now)
            WHERE id = \(trade.id) AND state = \(trade.state.rawValue)
            """)
        guard changed == 1 else { return nil }
        try history(trade.id, action, from: trade.state, to: target, by: actor, at: change.now, change.session)
        try settle(moved, after: action, team: team, &change, people: people)
        try record(action, moved, team: team, by: actor, &change, people: people)
        return moved
    }

    /// What a trade's new state means beyond the row. A change someone asks for (a swap proposed,
    /// a take, a volunteer, a swap accepted) must be one the roster allows as it is now; an ended
    /// trade lets go of its shifts; an approved one is written into the roster (after checking,
    /// once more, that it still can be: the world may have changed since it was asked for).
    private static func settle(
        _ trade: Trade, after action: TradeAction, team: Team, _ change: inout Change, people: PeopleDirectory
    ) throws {
        if [.create, .take, .accept].contains(action), [.requested, .awaitingApproval].contains(trade.state) {
            _ = try Settlement.check(trade, team: team, change.session, people: people)
        }
        if !trade.state.isOpen {
            try change.session.execute("DELETE FROM trade_claim WHERE trade_id = \(trade.id)")
        }
        if trade.state == .approved {
            try Settlement.apply(trade, team: team, at: change.now, change.session, people: people)
        }
    }

    // MARK: Parts

    /// Holds `occurrence` for `trade`, or refuses when another open trade holds it.
    private static func claim(_ occurrence: Occurrence, for trade: Trade, _ session: any SQLSession) throws {
        let key = occurrence.key
        let claimed = try session.execute("""
            INSERT INTO trade_claim (shift_id, occurrence_date, trade_id) VALUES (\(key.shiftID), \(key.date.description), \(trade.id))
            ON CONFLICT (shift_id, occurrence_date) DO NOTHING
            """)
        guard claimed == 1 else {
            let holder = try session.fetchValue(
                "SELECT trade_id FROM trade_claim WHERE shift_id = \(key.shiftID) AND occurrence_date = \(key.date.description)",
                as: Int64.self)
            let other = try holder.flatMap { try Trade.find(session, id: $0) }
            let what = other.map { "trade \($0.id) (\($0.kind.rawValue), \($0.state.words))" } ?? "another trade"
            throw TallyError(
                .failedPrecondition,
                "\(occurrence.label) is already in \(what); one trade at a time per shift: wait until it is settled, or withdraw it")
        }
    }

    private static func history(
        _ tradeID: Int64, _ action: TradeAction, from: TradeState?, to: TradeState, by actor: String?, at now: Int64,
        _ session: any SQLSession
    ) throws {
        try session.execute("""
            INSERT INTO trade_history (trade_id, action, from_state, to_state, by_user_id, at)
            VALUES (\(tradeID), \(action.rawValue), \(from?.rawValue), \(to.rawValue), \(actor), \(timestamp: now))
            """)
    }

    /// The error for an action that lost a race: the trade was moved by another request between
    /// reading it and writing it.
    private static func movedMeanwhile(_ trade: Trade, _ action: TradeAction, team: Team, _ session: any SQLSession) throws -> TallyError {
        guard let now = try Trade.find(session, id: trade.id) else {
            return TallyError(.notFound, "trade \(trade.id) no longer exists", field: "args.trade_id")
        }
        do {
            _ = try TradeStateMachine.next(now.kind, from: now.state, action, requiresApproval: team.requiresApproval, tradeID: now.id)
        } catch {
            return error
        }
        return TallyError(.failedPrecondition, "trade \(trade.id) is now \(now.state.words): it changed while this request ran; look again")
    }

    // MARK: Events

    /// Records what `action` did to `trade`, each event with the people its alert should reach.
    private static func record(
        _ action: TradeAction, _ trade: Trade, team: Team, by actor: String?, _ change: inout Change, people: PeopleDirectory
    ) throws {
        let session = change.session
        let result = try trade.result(session, team: team, people: people)
        func event(_ kind: (TradeEvent) -> RosterEvent, _ notify: [String]) {
            let notify = Array(Set(notify.filter { $0 != actor })).sorted()
            change.record(kind(TradeEvent(team: team.ref, trade: result, by: actor, notify: notify)))
        }
        switch (action, trade.kind) {
        case (.create, .offer):
            // Everyone in the team who could take it: not the giver, and free at that time.
            let colleagues = try Member.active(session, teamID: team.id).map(\.userID).filter { $0 != trade.fromUserID }
            let occurrence = try ScheduleReader.occurrence(
                session, shift: try shift(trade.occurrence, session), team: team, date: trade.occurrence.date, field: "trade_id")
            event(RosterEvent.shiftOffered, try OverlapRule.free(session, colleagues, for: occurrence))
        case (.create, .swap): event(RosterEvent.swapRequested, trade.toUserID.map { [$0] } ?? [])
        case (.create, .wanted): event(RosterEvent.shiftVolunteered, [])
        case (.take, _): event(RosterEvent.shiftTaken, trade.fromUserID.map { [$0] } ?? [])
        case (.accept, _): event(RosterEvent.swapAccepted, trade.fromUserID.map { [$0] } ?? [])
        case (.undo, _): event(RosterEvent.takeUndone, trade.fromUserID.map { [$0] } ?? [])
        case (.withdraw, _): event(RosterEvent.tradeWithdrawn, trade.people)
        case (.approve, _): event(RosterEvent.changeApproved, trade.people)
        case (.decline, _): event(RosterEvent.changeDeclined, trade.people)
        case (.expire, _): event(RosterEvent.tradeExpired, trade.people)
        }
        switch trade.state {
        case .awaitingApproval where action != .approve:
            let managers = try Member.active(session, teamID: team.id).filter(\.isManager).map(\.userID)
            event(RosterEvent.approvalRequested, managers)
        case .approved where action != .approve:
            // No approval needed: agreed and approved in one step.
            event(RosterEvent.changeApproved, trade.people)
        default: break
        }
    }

    private static func shift(_ key: OccurrenceKey, _ session: any SQLSession) throws -> Shift {
        guard let shift = try Shift.find(session, id: key.shiftID) else {
            throw StoredDataFailure("a trade is about shift \(key.shiftID), which is missing")
        }
        return shift
    }
}
