import Foundation
import TallyAuth
import TallyStorage

/// Makes the tokens a session hands out: short-lived signed access tokens, which any worker checks
/// by itself, and refresh tokens, stored hashed, each good for one refresh.
struct TokenIssuer: Sendable {
    let signer: AccessTokenSigner
    let settings: IdentitySettings

    /// A signed access token for `user` in `session`, valid from `now` (ms) for the configured lifetime.
    func accessToken(for user: UserRecord, session: String, now: Int64) throws -> (text: String, expiresAt: Int64) {
        let issued = now / 1000
        let claims = AccessTokenClaims(
            subject: user.userID, username: user.username, roles: user.roles, sessionID: session, issuedAt: issued,
            expiresAt: issued + settings.accessTokenLifetime.components.seconds)
        return (try signer.sign(claims), claims.expiresAt * 1000)
    }

    /// A new refresh token of `session`, stored (as its hash) in the caller's transaction.
    func refreshToken(session: String, _ sql: any SQLSession, now: Int64) throws -> (token: OpaqueToken, expiresAt: Int64) {
        let token = OpaqueToken.generate(.refresh)
        let expires = now + settings.refreshTokenLifetime.milliseconds
        try sql.execute("""
            INSERT INTO refresh_token (token_hash, session_id, issued_at_ms, expires_at_ms)
            VALUES (\(token.hash), \(session), \(timestamp: now), \(timestamp: expires))
            """)
        return (token, expires)
    }

    /// What a login or a refresh gives: an access token and the refresh token for the next one.
    func tokens(for user: UserRecord, session: String, _ sql: any SQLSession, now: Int64) throws -> SessionTokens {
        let access = try accessToken(for: user, session: session, now: now)
        let refresh = try refreshToken(session: session, sql, now: now)
        return SessionTokens(
            accessToken: access.text, expiresAt: Timestamp.rfc3339(access.expiresAt),
            expiresIn: settings.accessTokenLifetime.components.seconds, refreshToken: refresh.token.text,
            refreshExpiresAt: Timestamp.rfc3339(refresh.expiresAt), sessionID: session, user: user.summary)
    }

    /// What a service login gives: an access token only; the service token is the lasting credential.
    func serviceTokens(for user: UserRecord, session: String, now: Int64) throws -> SessionTokens {
        let access = try accessToken(for: user, session: session, now: now)
        return SessionTokens(
            accessToken: access.text, expiresAt: Timestamp.rfc3339(access.expiresAt),
            expiresIn: settings.accessTokenLifetime.components.seconds, refreshToken: nil, refreshExpiresAt: nil,
            sessionID: session, user: user.summary)
    }
}
