import TallyProtocol
import TallyStorage

/// `roster.set_role`: makes a member a manager or an employee.
enum SetRoleCommand {
    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: RosterStore) throws -> StoredResult {
        try args.allowOnly(["team_id", "user_id", "role"])
        let teamID = try args.id("team_id", of: "one of your teams")
        let userID = try args.userID("user_id")
        guard let role = try args.optionalRole("role") else {
            throw TallyError.invalidArgument("role is required (\"manager\" or \"employee\")", field: args.field("role"))
        }
        return try store.change(context, args, owner: caller.userID) { change in
            let team = try TeamAccess.manager(change.session, teamID: teamID, caller: caller, to: "change roles").team
            var member = try TeamAccess.activeMember(change.session, team: team, userID: userID, field: args.field("user_id"))
            guard member.role != role else { return member.result() }
            if member.role == .manager { try LastManager.check(change.session, team: team, losing: member) }
            member.role = role
            try member.updateRole(change.session)
            change.record(RosterEvent.memberRoleChanged(MemberEvent(
                team: team.ref, member: member.result(), by: caller.userID, openedShifts: nil)))
            return member.result()
        }
    }
}

/// `roster.remove_member`: a manager removes a member, or a member leaves.
///
/// What they worked does not vanish with them: the shifts they were scheduled for become open
/// (wanted), as a whole, as `roster.update_shift` changes a shift; the days they took from others
/// become open from today on; their open trades are withdrawn, and offers they had taken go back
/// on the marketplace.
enum RemoveMemberCommand {
    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: RosterStore) throws -> StoredResult {
        try args.allowOnly(["team_id", "user_id"])
        let teamID = try args.id("team_id", of: "one of your teams")
        let userID = try args.userID("user_id")
        return try store.change(context, args, owner: caller.userID) { change in
            let session = change.session
            let access = try TeamAccess.member(session, teamID: teamID, caller: caller)
            let team = access.team
            if userID != caller.userID { try access.requireManager(to: "remove members") }
            let member = try TeamAccess.activeMember(session, team: team, userID: userID, field: args.field("user_id"))
            if member.isManager { try LastManager.check(session, team: team, losing: member) }

            let people = try Member.names(session, teamIDs: [team.id])
            var affected: [Int64] = []
            for trade in try Trade.inTeam(session, teamID: team.id, states: TradeState.open) where trade.people.contains(userID) {
                if trade.kind == .offer && trade.toUserID == userID {
                    // They had taken a colleague's offer: it goes back on the marketplace.
                    try TradeTransitions.apply(.undo, to: trade, team: team, by: caller.userID, receiver: .clear, &change, people: people)
                } else {
                    try TradeTransitions.apply(.withdraw, to: trade, team: team, by: caller.userID, &change, people: people)
                }
                affected.append(trade.id)
            }
            let opened = try session.fetchValues(
                "SELECT id FROM shift WHERE team_id = \(team.id) AND assignee_user_id = \(userID) ORDER BY id", as: Int64.self)
            if !opened.isEmpty {
                try session.execute("UPDATE shift SET assignee_user_id = NULL, updated_at = \(timestamp: change.now) WHERE id IN (\(list: opened))")
            }
            let today = team.timeZone.date(at: change.now).description
            try session.execute("""
                UPDATE assignment SET assignee_user_id = NULL, trade_id = NULL
                WHERE assignee_user_id = \(userID) AND occurrence_date >= \(today)
                    AND shift_id IN (SELECT id FROM shift WHERE team_id = \(team.id))
                """)
            try member.markRemoved(session, at: change.now)
            change.record(RosterEvent.memberRemoved(MemberEvent(
                team: team.ref, member: member.result(), by: caller.userID, openedShifts: opened)))
            return RemovalResult(member: member.result(), openedShifts: opened, affectedTrades: affected)
        }
    }
}

struct RemovalResult: Encodable, Sendable {
    let member: MemberResult
    /// The shifts they were scheduled for, open now.
    let openedShifts: [Int64]
    /// Their open trades: withdrawn, or (offers they had taken) back on the marketplace.
    let affectedTrades: [Int64]
}

/// A team always has a manager: someone has to approve its changes.
enum LastManager {
    static func check(_ session: any SQLSession, team: Team, losing member: Member) throws {
        let managers = try Member.active(session, teamID: team.id).filter(\.isManager)
        guard managers.contains(where: { $0.userID != member.userID }) else {
            throw TallyError(
                .failedPrecondition,
                "\(member.displayName) is the only manager of \(team.label), and a team needs one: make someone else a manager first (roster.set_role)")
        }
    }
}
