import TallyProtocol
import TallyStorage

/// `identity.refresh`: a refresh token in, a new access token and a new refresh token out.
///
/// Each refresh token works once (rotation). A refresh token used a second time means two parties
/// hold it, one of them perhaps a thief: its whole session is ended, so neither can go on, and the
/// person logs in again (OAuth 2.0 Security Best Current Practice, refresh token rotation).
/// Roles granted or revoked since the last token show in the new one.
enum RefreshCommand {
    private enum Outcome {
        case tokens(SessionTokens)
        case refused(String)
    }

    static func run(_ args: Arguments, _ context: RequestContext, _ identity: IdentityResources) throws -> SessionTokens {
        try args.allowOnly(["refresh_token"])
        let text = try args.string("refresh_token", example: "\"tally_rt_...\"")
        let field = args.field("refresh_token")
        guard OpaqueToken.isWellFormed(text, .refresh) else {
            throw TallyError(
                .unauthenticated, "this is not a refresh token (one starts with tally_rt_ and comes from identity.login); log in again",
                field: field)
        }
        let outcome = try identity.store.change(unkeyed: context.command) { change -> Outcome in
            let sql = change.session
            guard let row = try sql.fetchOne("""
                SELECT r.session_id, r.expires_at_ms, r.used_at_ms, s.user_id FROM refresh_token r
                JOIN user_session s ON s.id = r.session_id WHERE r.token_hash = \(OpaqueToken.hash(text))
                """),
                let session = try SessionRecord.find(sql, id: try row["session_id"]),
                let user = try UserRecord.find(sql, userID: String(try row["user_id"] as Int64))
            else { return .refused("this refresh token is not known; log in again") }
            guard session.isOpen else {
                return .refused("this refresh token's session has ended (\(session.endExplanation)); log in again")
            }
            if try row["used_at_ms"] as Int64? != nil {
                for ended in try SessionRecord.end(sql, user: user.id, only: session.id, reason: .refreshTokenReused, at: change.now) {
                    change.record(IdentityEvent.sessionEnded(.init(ended, of: user, reason: .refreshTokenReused)))
                }
                return .refused(
                    "this refresh token was used before, so someone else may hold it: its session has been ended to be safe; log in again")
            }
            let expires: Int64 = try row["expires_at_ms"]
            guard change.now < expires else {
                return .refused("this refresh token expired at \(Timestamp.rfc3339(expires)); log in again")
            }
            try sql.execute("UPDATE refresh_token SET used_at_ms = \(timestamp: change.now) WHERE token_hash = \(OpaqueToken.hash(text))")
            return .tokens(try identity.tokens.tokens(for: user, session: session.id, sql, now: change.now))
        }
        switch outcome {
        case .tokens(let tokens): return tokens
        case .refused(let message): throw TallyError(.unauthenticated, message, field: field)
        }
    }
}
