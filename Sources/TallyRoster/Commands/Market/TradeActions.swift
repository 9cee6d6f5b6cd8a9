import TallyProtocol
import TallyStorage

/// `roster.take`: a colleague takes an offered shift. Of two colleagues taking one offer at once,
/// exactly one gets it; the other is told it is no longer offered.
enum TakeCommand {
    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: RosterStore) throws -> StoredResult {
        try TradeCommand.run(.take, args, caller, context, store, to: "take a shift") { trade, access, subject, change, people in
            guard subject.userID != trade.fromUserID else {
                throw TallyError(.failedPrecondition, "trade \(trade.id) is \(people.name(subject.userID))'s own offer; withdraw it instead")
            }
            return try TradeTransitions.apply(
                .take, to: trade, team: access.team, by: access.caller.userID, receiver: .set(subject.userID), &change, people: people)
        }
    }
}

/// `roster.undo_take`: the taker of an offer (or the colleague who accepted a swap) takes that
/// back before a manager has decided. The offer is on the marketplace again; the swap waits for
/// their answer again.
enum UndoTakeCommand {
    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: RosterStore) throws -> StoredResult {
        try TradeCommand.run(.undo, args, caller, context, store, to: "undo a take") { trade, access, subject, change, people in
            guard let receiver = trade.toUserID, receiver == subject.userID else {
                let who = trade.toUserID.map { " (\(people.name($0)))" } ?? ""
                throw TallyError(
                    .permissionDenied, "only the one who took trade \(trade.id)\(who) may undo that, or a manager for them")
            }
            return try TradeTransitions.apply(
                .undo, to: trade, team: access.team, by: access.caller.userID, receiver: trade.kind == .offer ? .clear : .keep, &change,
                people: people)
        }
    }
}

/// `roster.accept_swap`: the colleague asked to swap agrees.
enum AcceptSwapCommand {
    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: RosterStore) throws -> StoredResult {
        try TradeCommand.run(.accept, args, caller, context, store, to: "accept a swap") { trade, access, subject, change, people in
            try subject.mustBe(trade.toUserID, "the colleague asked to swap", to: "accept trade \(trade.id)", people: people)
            return try TradeTransitions.apply(.accept, to: trade, team: access.team, by: access.caller.userID, &change, people: people)
        }
    }
}

/// `roster.withdraw`: the one who started a trade takes it back while it is open.
enum WithdrawCommand {
    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: RosterStore) throws -> StoredResult {
        try TradeCommand.run(.withdraw, args, caller, context, store, to: "withdraw a trade") { trade, access, subject, change, people in
            try subject.mustBe(
                trade.initiator, "the one who started trade \(trade.id)", to: "withdraw it", people: people, instead: "; managers decline instead")
            return try TradeTransitions.apply(.withdraw, to: trade, team: access.team, by: access.caller.userID, &change, people: people)
        }
    }
}

/// `roster.approve`: a manager approves an agreed change; the roster changes.
enum ApproveCommand {
    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: RosterStore) throws -> StoredResult {
        try TradeCommand.run(.approve, args, caller, context, store, to: "approve changes", actsForOthers: false) { trade, access, _, change, people in
            try access.requireManager(to: "approve changes")
            return try TradeTransitions.apply(.approve, to: trade, team: access.team, by: access.caller.userID, &change, people: people)
        }
    }
}

/// `roster.decline`: a manager declines a trade (or takes an offer off the marketplace); the
/// colleague asked to swap may decline that request.
enum DeclineCommand {
    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: RosterStore) throws -> StoredResult {
        try TradeCommand.run(.decline, args, caller, context, store, to: "decline", actsForOthers: false) { trade, access, _, change, people in
            let askedToSwap = trade.kind == .swap && trade.state == .requested && trade.toUserID == access.caller.userID
            guard access.isManager || askedToSwap else {
                throw TallyError(
                    .permissionDenied,
                    "only a manager of \(access.team.label) may decline trade \(trade.id)\(trade.kind == .swap && trade.state == .requested ? ", or the colleague asked to swap" : "")")
            }
            return try TradeTransitions.apply(.decline, to: trade, team: access.team, by: access.caller.userID, &change, people: people)
        }
    }
}

/// What the commands on one trade share: the caller, the trade in one of their teams, whether
/// `action` applies to its state at all (asked first, so a trade that has moved on says so
/// whoever asks), whom the caller acts for, and the trade as it is afterwards.
enum TradeCommand {
    typealias Body = (Trade, TeamAccess, Member, inout Change, PeopleDirectory) throws -> Trade

    static func run(
        _ action: TradeAction, _ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: RosterStore, to what: String,
        actsForOthers: Bool = true, _ body: Body
    ) throws -> StoredResult {
        try args.allowOnly(actsForOthers ? ["trade_id", "for_user_id"] : ["trade_id"])
        let tradeID = try args.id("trade_id", of: "a trade of one of your teams")
        return try store.change(context, args, owner: caller.userID) { change in
            let session = change.session
            guard let trade = try Trade.find(session, id: tradeID),
                try Member.active(session, teamID: trade.teamID, userID: caller.userID) != nil
            else { throw TallyError(.notFound, "none of your teams has a trade \(tradeID)", field: args.field("trade_id")) }
            let access = try TeamAccess.member(session, teamID: trade.teamID, caller: caller)
            _ = try TradeStateMachine.next(trade.kind, from: trade.state, action, requiresApproval: access.team.requiresApproval, tradeID: trade.id)
            let subject = actsForOthers ? try access.subject(args, session, to: what) : access.member
            let people = try Member.names(session, teamIDs: [access.team.id])
            let moved = try body(trade, access, subject, &change, people)
            return try moved.result(session, team: access.team, people: people)
        }
    }
}
