import TallyProtocol

/// What a trade is.
enum TradeKind: String, Sendable, CaseIterable {
    /// Aangeboden: the worker of a shift offers it; a colleague takes it.
    case offer
    /// Gezocht: an open shift (nobody works it) wants someone; a member volunteers.
    case wanted
    /// Two members exchange one shift each; the other one accepts.
    case swap
}

/// Where a trade is. The first three are open (the trade holds its shifts); the rest are final.
enum TradeState: String, Sendable, CaseIterable {
    /// On the marketplace, waiting for a colleague to take it (aangeboden).
    case offered
    /// A swap proposed to a colleague, waiting for their answer.
    case requested
    /// Both sides agree; a manager decides (the seed's orange).
    case awaitingApproval = "awaiting_approval"
    /// Done: the roster changed (the seed's "sold", red, on the giver's roster).
    case approved
    /// A manager, or the colleague asked to swap, said no.
    case declined
    /// The one who started it (or a manager for them) took it back.
    case withdrawn
    /// Its shift started before it was settled.
    case expired

    static let open: [TradeState] = [.offered, .requested, .awaitingApproval]

    var isOpen: Bool { Self.open.contains(self) }

    /// "awaiting approval", for messages.
    var words: String { rawValue.replacingOccurrences(of: "_", with: " ") }
}

/// What someone (or the service) does to a trade.
enum TradeAction: String, Sendable, CaseIterable {
    /// Starts an offer, a volunteer or a swap.
    case create
    /// A colleague takes an offer.
    case take
    /// The colleague asked to swap agrees.
    case accept
    /// The taker, or the colleague who accepted a swap, takes that back before a manager decides.
    case undo
    /// The one who started it takes it back.
    case withdraw
    case approve
    case decline
    /// The service, once the trade's first shift has started.
    case expire
}

/// The one place that says how trades move: from which state each action leads where. Every
/// change of a trade's state goes through `next` (and `TradeTransitions.apply`, which writes it
/// with a conditional UPDATE on the state it comes from); the table in docs/protocol.md is this.
///
/// "Settled" is where an agreed change goes: `awaiting_approval` when the team requires a
/// manager's approval, else straight to `approved`.
enum TradeStateMachine {
    struct Rule: Sendable {
        let from: TradeState?
        let action: TradeAction
        let kinds: Set<TradeKind>
        /// The state it leads to, for a team that does (true) or does not require approval.
        let to: @Sendable (TradeKind, Bool) -> TradeState
    }

    static let all = Set(TradeKind.allCases)
    static let settled: @Sendable (TradeKind, Bool) -> TradeState = { _, requiresApproval in
        requiresApproval ? .awaitingApproval : .approved
    }

    static let rules: [Rule] = [
        Rule(from: nil, action: .create, kinds: [.offer], to: { _, _ in .offered }),
        Rule(from: nil, action: .create, kinds: [.swap], to: { _, _ in .requested }),
        Rule(from: nil, action: .create, kinds: [.wanted], to: settled),
        Rule(from: .offered, action: .take, kinds: [.offer], to: settled),
        Rule(from: .requested, action: .accept, kinds: [.swap], to: settled),
        Rule(from: .awaitingApproval, action: .approve, kinds: all, to: { _, _ in .approved }),
        Rule(from: .awaitingApproval, action: .undo, kinds: [.offer], to: { _, _ in .offered }),
        Rule(from: .awaitingApproval, action: .undo, kinds: [.swap], to: { _, _ in .requested }),
    ] + [TradeAction.decline: TradeState.declined, .withdraw: .withdrawn, .expire: .expired].flatMap { action, end in
        // Any open trade can end these three ways, from whichever open state its kind has.
        [
            Rule(from: .offered, action: action, kinds: [.offer], to: { _, _ in end }),
            Rule(from: .requested, action: action, kinds: [.swap], to: { _, _ in end }),
            Rule(from: .awaitingApproval, action: action, kinds: all, to: { _, _ in end }),
        ]
    }

    /// The state `action` moves a trade of `kind` in `state` to, or `failed_precondition` saying
    /// what state it is in and where the action applies.
    static func next(
        _ kind: TradeKind, from state: TradeState?, _ action: TradeAction, requiresApproval: Bool, tradeID: Int64? = nil
    ) throws(TallyError) -> TradeState {
        if let rule = rules.first(where: { $0.from == state && $0.action == action && $0.kinds.contains(kind) }) {
            return rule.to(kind, requiresApproval)
        }
        let from = rules.filter { $0.action == action && $0.kinds.contains(kind) }.compactMap(\.from?.words)
        let name = tradeID.map { "trade \($0)" } ?? "the trade"
        let current = state.map { "is \($0.words)" } ?? "does not exist yet"
        let allowed =
            from.isEmpty
            ? "\(kind.rawValue) trades cannot be \(action.pastTense)"
            : "only a trade that is \(from.joined(separator: " or ")) can be \(action.pastTense)"
        throw TallyError(.failedPrecondition, "\(name) (\(kind.rawValue)) \(current); \(allowed)")
    }
}

extension TradeAction {
    var pastTense: String {
        switch self {
        case .create: "created"
        case .take: "taken"
        case .accept: "accepted"
        case .undo: "undone"
        case .withdraw: "withdrawn"
        case .approve: "approved"
        case .decline: "declined"
        case .expire: "expired"
        }
    }
}
