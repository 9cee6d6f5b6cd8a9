import TallyProtocol
import TallyStorage

/// `identity.logout`: ends the caller's session (or, with `all_sessions`, every login of theirs),
/// so its refresh tokens stop working at once, and identity's privileged commands refuse its access
/// tokens at once (`SessionAuthority`). Other services accept those until they expire: they check
/// tokens without asking the identity service (docs/security.md).
enum LogoutCommand {
    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ identity: IdentityResources) throws -> StoredResult {
        try args.allowOnly(["all_sessions"])
        let all = try args.optionalBool("all_sessions") ?? false
        guard all || caller.sessionID != nil else {
            throw TallyError(.unauthenticated, "this token names no session to end; log in again", field: "token")
        }
        let request = ChangeRequest(
            context, owner: caller.userID,
            fingerprint: ["all_sessions": .bool(all), "session_id": caller.sessionID.map(JSONValue.string) ?? .null])
        return try identity.store.change(request) { change in
            guard let user = try UserRecord.find(change.session, userID: caller.userID) else { throw UnknownCaller().error }
            let ended = try SessionRecord.end(
                change.session, user: user.id, only: all ? nil : caller.sessionID, kind: all ? .login : nil, reason: .logout,
                at: change.now)
            for session in ended { change.record(IdentityEvent.sessionEnded(.init(session, of: user, reason: .logout))) }
            return EndedSessions(endedSessions: ended.count)
        }
    }
}

/// A valid token of a user the identity service no longer has.
struct UnknownCaller {
    var error: TallyError { TallyError(.unauthenticated, "the user this token was issued to no longer exists; log in again", field: "token") }
}
