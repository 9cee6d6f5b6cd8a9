import TallyProtocol
import TallyStorage

/// `identity.whoami`: who the token's caller is as the identity service knows them now (current
/// roles), and their session. Unlike other services, identity also checks that the session is
/// still open, so a token of a logged-out session is refused here at once.
enum WhoamiCommand {
    static func run(_ args: Arguments, _ context: RequestContext, _ identity: IdentityResources) throws -> WhoamiResult {
        try args.allowOnly([])
        let caller = try context.requireCaller()
        let (user, session) = try identity.store.store.read { sql in
            (try UserRecord.find(sql, userID: caller.userID), try caller.sessionID.flatMap { try SessionRecord.find(sql, id: $0) })
        }
        guard let user else { throw UnknownCaller().error }
        guard let session, session.userID == user.id else {
            throw TallyError(.unauthenticated, "this token's session is not known; log in again", field: "token")
        }
        guard session.isOpen else {
            throw TallyError(.unauthenticated, "this token's session has ended (\(session.endExplanation)); log in again", field: "token")
        }
        return WhoamiResult(
            user: user.result, sessionID: session.id, sessionKind: session.kind.rawValue,
            sessionStartedAt: Timestamp.rfc3339(session.startedAt))
    }
}
