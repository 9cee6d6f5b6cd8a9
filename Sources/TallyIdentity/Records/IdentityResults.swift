/// A user as `identity.signup`, `identity.whoami`, `identity.users` and the role commands show them.
struct UserResult: Encodable, Sendable {
    let userID: String
    let username: String
    let kind: UserKind
    let roles: [String]
    let createdAt: String

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case username, kind, roles
        case createdAt = "created_at"
    }
}

/// Who a token is for, inside the results that carry one.
struct UserSummary: Encodable, Sendable {
    let userID: String
    let username: String
    let roles: [String]

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case username, roles
    }
}

/// What `identity.login`, `identity.refresh` and `identity.service_login` give: an access token
/// to send as the envelope's `token`, and (for a login) the refresh token that gets the next one.
struct SessionTokens: Encodable, Sendable {
    let accessToken: String
    let expiresAt: String
    /// Seconds the access token is valid for.
    let expiresIn: Int64
    let refreshToken: String?
    let refreshExpiresAt: String?
    let sessionID: String
    let user: UserSummary

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case expiresAt = "expires_at"
        case expiresIn = "expires_in"
        case refreshToken = "refresh_token"
        case refreshExpiresAt = "refresh_expires_at"
        case sessionID = "session_id"
        case user
    }
}

/// `identity.whoami`: the user as stored now, and the session the token belongs to.
struct WhoamiResult: Encodable, Sendable {
    let user: UserResult
    let sessionID: String
    let sessionKind: String
    let sessionStartedAt: String

    enum CodingKeys: String, CodingKey {
        case user
        case sessionID = "session_id"
        case sessionKind = "session_kind"
        case sessionStartedAt = "session_started_at"
    }
}

/// `identity.logout`, `identity.change_password`, `identity.revoke_service_token`: the sessions ended.
struct EndedSessions: Encodable, Sendable {
    let endedSessions: Int

    enum CodingKeys: String, CodingKey {
        case endedSessions = "ended_sessions"
    }
}

/// `identity.users`: a page of users.
struct UserPage: Encodable, Sendable {
    let users: [UserResult]
    let more: Bool
}

/// `identity.issue_service_token`: the new token, shown this once.
struct IssuedServiceToken: Encodable, Sendable {
    let serviceToken: String
    let sessionID: String
    let user: UserSummary

    enum CodingKeys: String, CodingKey {
        case serviceToken = "service_token"
        case sessionID = "session_id"
        case user
    }
}
