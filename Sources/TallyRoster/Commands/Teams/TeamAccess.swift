import TallyProtocol
import TallyStorage

/// The caller in one team: their membership, and what it lets them do. Team roles are the
/// roster's own data, so they are checked here, not by the middleware.
struct TeamAccess: Sendable {
    let team: Team
    let caller: Caller
    let member: Member

    var isManager: Bool { member.isManager }

    /// The caller's place in team `teamID`. A team they are not in is as absent as one that does
    /// not exist (`not_found`), so nobody learns what teams there are.
    static func member(_ session: any SQLSession, teamID: Int64, caller: Caller, field: String = "args.team_id") throws -> TeamAccess {
        guard let team = try Team.find(session, id: teamID),
            let member = try Member.active(session, teamID: teamID, userID: caller.userID)
        else { throw TallyError(.notFound, "you are not a member of a team \(teamID)", field: field) }
        return TeamAccess(team: team, caller: caller, member: member)
    }

    /// The caller's place in team `teamID`, which must be a manager's, to do `what` ("add shifts").
    static func manager(
        _ session: any SQLSession, teamID: Int64, caller: Caller, to what: String, field: String = "args.team_id"
    ) throws -> TeamAccess {
        let access = try member(session, teamID: teamID, caller: caller, field: field)
        try access.requireManager(to: what)
        return access
    }

    func requireManager(to what: String) throws(TallyError) {
        guard isManager else {
            throw TallyError(
                .permissionDenied, "only a manager of \(team.label) may \(what); you are an employee there. Ask one of its managers")
        }
    }

    /// The member a command acts for: the caller, or, with `for_user_id`, another member, which
    /// only a manager may do (acting for an employee who cannot, say).
    func subject(_ args: Arguments, _ session: any SQLSession, to what: String) throws -> Member {
        guard let userID = try args.optionalUserID("for_user_id"), userID != caller.userID else { return member }
        guard isManager else {
            throw TallyError(
                .permissionDenied,
                "only a manager of \(team.label) may \(what) for someone else; you are an employee there. Leave out for_user_id to \(what) for yourself",
                field: args.field("for_user_id"))
        }
        return try Self.activeMember(session, team: team, userID: userID, field: args.field("for_user_id"))
    }

    /// `userID`, who must be in `team` now.
    static func activeMember(_ session: any SQLSession, team: Team, userID: String, field: String) throws -> Member {
        guard let member = try Member.active(session, teamID: team.id, userID: userID) else {
            throw TallyError(.notFound, "\(userID) is not a member of \(team.label)", field: field)
        }
        return member
    }
}

extension Member {
    /// Refuses unless this member, the one a command acts for (`TeamAccess.subject`), is
    /// `holder`, `who` the action belongs to: anyone else, a manager included, may `what` only
    /// for them. `instead` ends the message where there is another way.
    func mustBe(_ holder: String?, _ who: String, to what: String, people: PeopleDirectory, instead: String = "") throws(TallyError) {
        guard holder != userID else { return }
        throw TallyError(
            .permissionDenied, "only \(who) (\(holder.map(people.name) ?? "nobody")) may \(what), or a manager for them\(instead)")
    }
}
