import TallyProtocol
import TallyStorage

/// `roster.create_team`: a new team, with the caller as its first manager.
enum CreateTeamCommand {
    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: RosterStore) throws -> StoredResult {
        try args.allowOnly(["name", "time_zone", "requires_approval", "hours_margin_minutes", "display_name"])
        let name = try args.text("name", longest: Team.nameLength, what: "the team's name, such as \"Corner Store\"")
        guard let zone = try args.optionalTimeZone("time_zone") else {
            throw TallyError.invalidArgument(
                "time_zone is required (the IANA time zone the team's schedule is in, such as \"Europe/Amsterdam\")", field: args.field("time_zone"))
        }
        let requiresApproval = try args.optionalBool("requires_approval") ?? true
        let margin = try args.optionalInteger("hours_margin_minutes", in: Team.hoursMargins) ?? Team.defaultHoursMargin
        let displayName = try DisplayName.read(args, caller: caller)
        return try store.change(context, args, owner: caller.userID) { change in
            let team = try Team.insert(
                change.session, name: name, timeZone: zone, requiresApproval: requiresApproval, hoursMarginMinutes: margin,
                createdBy: caller.userID, at: change.now)
            let member = try Member.join(change.session, teamID: team.id, caller: caller, displayName: displayName, role: .manager, at: change.now)
            change.record(RosterEvent.teamCreated(TeamEvent(team: team.result(), by: caller.userID, changed: nil)))
            change.record(RosterEvent.memberJoined(MemberEvent(
                team: team.ref, member: member.result(), by: caller.userID, openedShifts: nil)))
            return team.result(role: .manager)
        }
    }
}

/// `roster.update_team`: a team's name, time zone and settings.
enum UpdateTeamCommand {
    static let changeable = ["hours_margin_minutes", "name", "requires_approval", "time_zone"]

    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: RosterStore) throws -> StoredResult {
        try args.allowOnly(Set(changeable + ["team_id"]))
        let teamID = try args.id("team_id", of: "one of your teams")
        try args.requireAny(of: changeable, for: "roster.update_team")
        let name = try args.optionalText("name", longest: Team.nameLength, what: "the team's name")
        let zone = try args.optionalTimeZone("time_zone")
        let requiresApproval = try args.optionalBool("requires_approval")
        let margin = try args.optionalInteger("hours_margin_minutes", in: Team.hoursMargins)
        return try store.change(context, args, owner: caller.userID) { change in
            var team = try TeamAccess.manager(change.session, teamID: teamID, caller: caller, to: "change its settings").team
            var changed: [String] = []
            if let name, name != team.name {
                team.name = name
                changed.append("name")
            }
            if let zone, zone != team.timeZone {
                // Open trades hold instants computed in the old zone: settle them first.
                let open = try Trade.inTeam(change.session, teamID: team.id, states: TradeState.open)
                guard open.isEmpty else {
                    throw TallyError(
                        .failedPrecondition,
                        "\(team.label) has open trades (\(open.map { "trade \($0.id)" }.joined(separator: ", "))); settle them before moving the team to another time zone",
                        field: args.field("time_zone"))
                }
                team.timeZone = zone
                changed.append("time_zone")
            }
            if let requiresApproval, requiresApproval != team.requiresApproval {
                team.requiresApproval = requiresApproval
                changed.append("requires_approval")
            }
            if let margin, margin != team.hoursMarginMinutes {
                team.hoursMarginMinutes = margin
                changed.append("hours_margin_minutes")
            }
            if !changed.isEmpty {
                team.updatedAt = change.now
                try team.update(change.session)
                change.record(RosterEvent.teamUpdated(TeamEvent(team: team.result(), by: caller.userID, changed: changed)))
            }
            return team.result(role: .manager)
        }
    }
}

/// `roster.teams`: the teams the caller is in, with their role in each.
enum TeamsCommand {
    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: RosterStore) throws -> TeamsResult {
        try args.allowOnly([])
        return try store.read { session in
            let teams = try Team.all(session, ids: try Member.teamIDs(session, userID: caller.userID))
            return TeamsResult(teams: try teams.map { team in
                team.result(role: try Member.active(session, teamID: team.id, userID: caller.userID)?.role)
            })
        }
    }
}

struct TeamsResult: Encodable, Sendable {
    let teams: [TeamResult]
}

/// `roster.team`: one of the caller's teams and its members.
enum TeamCommand {
    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: RosterStore) throws -> TeamDetailResult {
        try args.allowOnly(["team_id"])
        let teamID = try args.id("team_id", of: "one of your teams")
        return try store.read { session in
            let access = try TeamAccess.member(session, teamID: teamID, caller: caller)
            return TeamDetailResult(
                team: access.team.result(role: access.member.role),
                members: try Member.active(session, teamID: teamID).map { $0.result() })
        }
    }
}

struct TeamDetailResult: Encodable, Sendable {
    let team: TeamResult
    /// Managers first, then by name.
    let members: [MemberResult]
}

/// The name a member goes by in a team: `display_name` when given, else their username.
enum DisplayName {
    static func read(_ args: Arguments, caller: Caller) throws(TallyError) -> String {
        if let name = try args.optionalText("display_name", longest: Member.displayNameLength, what: "your name as the team sees it") {
            return name
        }
        let username = caller.username.isEmpty ? caller.userID : caller.username
        return String(username.prefix(Member.displayNameLength))
    }
}
