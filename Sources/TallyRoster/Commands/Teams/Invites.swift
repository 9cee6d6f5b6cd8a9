import TallyProtocol
import TallyStorage

/// How people join a team. The roster cannot look people up in the identity service, so a
/// manager makes a single-use code and hands it over (on paper, in a chat); whoever joins with it
/// is named by their own token, and the team knows them by the display name they join with.
enum InviteCode {
    /// Letters and digits nobody misreads: no 0/O, 1/I/L.
    static let alphabet = Array("ABCDEFGHJKMNPQRSTUVWXYZ23456789")
    /// 12 symbols of 31: about 59 bits, far beyond guessing.
    static let length = 12
    static let validHours = 1...720
    static let defaultValidHours = 168

    /// A fresh code from the system's secure random source, written in groups of four: `K7QM-4XPD-9RWT`.
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let symbols = (0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }
        return stride(from: 0, to: length, by: 4).map { String(symbols[$0..<$0 + 4]) }.joined(separator: "-")
    }

    /// The code as stored: upper case, without the dashes and spaces people type or leave out.
    static func canonical(_ typed: String) -> String {
        String(typed.uppercased().filter { $0 != "-" && !$0.isWhitespace })
    }
}

/// `roster.create_invite`: a single-use code to join a team.
enum CreateInviteCommand {
    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: RosterStore) throws -> StoredResult {
        try args.allowOnly(["team_id", "role", "valid_hours"])
        let teamID = try args.id("team_id", of: "one of your teams")
        let role = try args.optionalRole("role") ?? .employee
        let hours = try args.optionalInteger("valid_hours", in: InviteCode.validHours) ?? InviteCode.defaultValidHours
        return try store.change(context, args, owner: caller.userID) { change in
            let team = try TeamAccess.manager(change.session, teamID: teamID, caller: caller, to: "invite people").team
            let code = InviteCode.make()
            let expiresAt = change.now + Int64(hours) * 3_600_000
            guard let id = try change.session.fetchValue("""
                INSERT INTO invite (team_id, code, role, created_by, created_at, expires_at)
                VALUES (\(team.id), \(InviteCode.canonical(code)), \(role.rawValue), \(caller.userID), \(timestamp: change.now), \(timestamp: expiresAt))
                RETURNING id
                """, as: Int64.self)
            else { throw StorageFailure(location: "roster", detail: "INSERT INTO invite ... RETURNING gave no row") }
            change.record(RosterEvent.inviteCreated(InviteEvent(
                team: team.ref, inviteID: id, role: role.rawValue, expiresAt: Timestamp.rfc3339(expiresAt), by: caller.userID)))
            return InviteResult(code: code, team: team.ref, role: role.rawValue, expiresAt: Timestamp.rfc3339(expiresAt))
        }
    }
}

struct InviteResult: Encodable, Sendable {
    /// Hand it to the person who should join; it works once.
    let code: String
    let team: TeamRef
    let role: String
    let expiresAt: String
}

/// `roster.join`: the caller joins the team of an invite code, with the invite's role.
enum JoinCommand {
    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: RosterStore) throws -> StoredResult {
        try args.allowOnly(["code", "display_name"])
        let typed = try args.string("code", example: "the invite code a manager gave you, such as \"K7QM-4XPD-9RWT\"")
        let code = InviteCode.canonical(typed)
        let displayName = try DisplayName.read(args, caller: caller)
        return try store.change(context, args, owner: caller.userID) { change in
            let session = change.session
            guard code.count <= 64, let invite = try session.fetchOne(
                "SELECT id, team_id, role, expires_at, used_at FROM invite WHERE code = \(code)")
            else {
                throw TallyError(.notFound, "no invite has the code \(typed); check it with the manager who gave it to you", field: args.field("code"))
            }
            let teamID: Int64 = try invite["team_id"]
            guard let team = try Team.find(session, id: teamID), let role = Role(rawValue: try invite["role"]) else {
                throw StoredDataFailure("invite \(try invite["id"] as Int64) names a team or role that is missing")
            }
            if try Member.active(session, teamID: team.id, userID: caller.userID) != nil {
                throw TallyError(.alreadyExists, "you are already a member of \(team.label); the code is still unused", field: args.field("code"))
            }
            if try invite["used_at"] as Int64? != nil {
                throw TallyError(
                    .failedPrecondition, "this invite to \(team.label) has been used; ask one of its managers for a new one", field: args.field("code"))
            }
            let expiresAt: Int64 = try invite["expires_at"]
            guard expiresAt > change.now else {
                throw TallyError(
                    .failedPrecondition, "this invite to \(team.label) expired at \(Timestamp.rfc3339(expiresAt)); ask one of its managers for a new one",
                    field: args.field("code"))
            }
            // Single use, even when two people send the code at once.
            let used = try session.execute("""
                UPDATE invite SET used_by = \(caller.userID), used_at = \(timestamp: change.now)
                WHERE id = \(try invite["id"] as Int64) AND used_at IS NULL
                """)
            guard used == 1 else {
                throw TallyError(
                    .failedPrecondition, "this invite to \(team.label) has been used; ask one of its managers for a new one", field: args.field("code"))
            }
            let member = try Member.join(session, teamID: team.id, caller: caller, displayName: displayName, role: role, at: change.now)
            change.record(RosterEvent.memberJoined(MemberEvent(
                team: team.ref, member: member.result(), by: caller.userID, openedShifts: nil)))
            return JoinResult(team: team.result(role: role), member: member.result())
        }
    }
}

struct JoinResult: Encodable, Sendable {
    let team: TeamResult
    let member: MemberResult
}
