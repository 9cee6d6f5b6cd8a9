import TallyProtocol
import Foundation

/// What an access token says: who the caller is, what roles they hold, which session it belongs
/// to, and when it is valid. Signed by the identity service, checked by every worker on its own.
///
/// On the wire it is the payload of a JWS (RFC 7515) in compact form, with JWT claim names
/// (RFC 7519): `iss`, `sub` (the user id), `username`, `roles`, `sid` (the session), and `iat`,
/// `nbf`, `exp` in seconds since 1970.
public struct AccessTokenClaims: Codable, Sendable, Equatable {
    /// Who issued it; always `tally`.
    public var issuer: String
    /// The user's id.
    public var subject: String
    public var username: String
    public var roles: [String]
    /// The session (a login, or a service token) the token was issued for.
    public var sessionID: String
    public var issuedAt: Int64
    public var notBefore: Int64
    public var expiresAt: Int64

    public static let tallyIssuer = "tally"

    public init(
        subject: String, username: String, roles: [String], sessionID: String, issuedAt: Int64, notBefore: Int64? = nil,
        expiresAt: Int64
    ) {
        issuer = Self.tallyIssuer
        self.subject = subject
        self.username = username
        self.roles = roles.sorted()
        self.sessionID = sessionID
        self.issuedAt = issuedAt
        self.notBefore = notBefore ?? issuedAt
        self.expiresAt = expiresAt
    }

    /// The claims of a token valid from `now` for `lifetime`.
    public init(subject: String, username: String, roles: [String], sessionID: String, now: Date, lifetime: Duration) {
        let issued = Int64(now.timeIntervalSince1970.rounded(.down))
        self.init(
            subject: subject, username: username, roles: roles, sessionID: sessionID, issuedAt: issued,
            expiresAt: issued + lifetime.components.seconds)
    }

    /// What a token says about itself, read WITHOUT checking its signature or its times: for a
    /// client that wants to know whose token it holds (`tally watch` subscribes to its user's
    /// alerts), never for deciding what a caller may do — that is `AccessTokenVerifier`'s, on the
    /// worker. Nil when `token` is not shaped like an access token.
    public static func unverified(from token: String) -> AccessTokenClaims? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Base64URL.decode(parts[1]) else { return nil }
        return try? TallyJSON.decode(AccessTokenClaims.self, from: payload)
    }

    /// The caller a request with this token comes from.
    public var caller: Caller {
        Caller(userID: subject, username: username, roles: Set(roles), sessionID: sessionID)
    }

    enum CodingKeys: String, CodingKey {
        case issuer = "iss"
        case subject = "sub"
        case username, roles
        case sessionID = "sid"
        case issuedAt = "iat"
        case notBefore = "nbf"
        case expiresAt = "exp"
    }
}
