import TallyProtocol
import TallyStorage

/// `identity.whoami`: who the token's caller is as the identity service knows them now (current
/// roles), and their session, which `SessionAuthority` has confirmed is open.
enum WhoamiCommand {
    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ identity: IdentityResources) throws -> WhoamiResult {
        try args.allowOnly([])
        let (user, session) = try identity.store.read { sql in
            (try UserRecord.find(sql, userID: caller.userID), try caller.sessionID.flatMap { try SessionRecord.find(sql, id: $0) })
        }
        // Both were there a moment ago, when the caller was confirmed; a user removed since is gone.
        guard let user, let session else { throw UnknownCaller().error }
        return WhoamiResult(
            user: user.result, sessionID: session.id, sessionKind: session.kind.rawValue,
            sessionStartedAt: Timestamp.rfc3339(session.startedAt))
    }
}
