import TallyProtocol
import TallyStorage
import TallyWorker

/// Identity's word on its own callers, asked by `AccessControl` before every identity command
/// that needs one: the token's session must still be open, and the roles checked are the user's
/// roles now, not those the token was signed with. So logging out, a password change, a revoked
/// service token or a revoked `admin` role takes effect on identity's commands at once (admin
/// commands, service tokens, role changes, password changes), while other services, which have no
/// sessions at hand, accept a token until it expires (docs/security.md).
struct SessionAuthority: CallerAuthority {
    let store: IdentityStore

    func current(_ caller: Caller) throws -> Caller {
        guard let sessionID = caller.sessionID else {
            throw TallyError(.unauthenticated, "this token names no session; log in again", field: "token")
        }
        let (user, session) = try store.read { sql in
            (try UserRecord.find(sql, userID: caller.userID), try SessionRecord.find(sql, id: sessionID))
        }
        guard let user else { throw UnknownCaller().error }
        guard let session, session.userID == user.id else {
            throw TallyError(.unauthenticated, "this token's session is not known; log in again", field: "token")
        }
        guard session.isOpen else {
            throw TallyError(.unauthenticated, "this token's session has ended (\(session.endExplanation)); log in again", field: "token")
        }
        return Caller(userID: user.userID, username: user.username, roles: Set(user.roles), sessionID: session.id)
    }
}
