/// A user as `identity.signup`, `identity.whoami`, `identity.users` and the role commands show them.
struct UserResult: Encodable, Sendable {
    let userID: String
    let username: String
    let kind: UserKind
    let roles: [String]
    let createdAt: String
}

/// Who a token is for, inside the results that carry one.
struct UserSummary: Encodable, Sendable {
    let userID: String
    let username: String
    let roles: [String]
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
}

/// `identity.whoami`: the user as stored now, and the session the token belongs to.
struct WhoamiResult: Encodable, Sendable {
    let user: UserResult
    let sessionID: String
    let sessionKind: String
    let sessionStartedAt: String
}

/// `identity.logout`, `identity.change_password`, `identity.revoke_service_token`: the sessions ended.
struct EndedSessions: Encodable, Sendable {
    let endedSessions: Int
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
}
