import TallyStorage

/// What happened to people, roles and sessions, as the identity service's outbox records it.
/// Events never carry a password, a hash or a token: only who, what, and which session.
struct IdentityEvent: DomainEvent {
    enum Kind: String {
        case userCreated = "identity.user_created"
        case roleGranted = "identity.role_granted"
        case roleRevoked = "identity.role_revoked"
        case passwordChanged = "identity.password_changed"
        case sessionStarted = "identity.session_started"
        case sessionEnded = "identity.session_ended"
    }

    let kind: Kind
    let userID: String
    let username: String
    /// The user's roles after the change (user_created, role_*).
    var roles: [String]? = nil
    var userKind: UserKind? = nil
    /// The role granted or revoked.
    var role: String? = nil
    /// The session started or ended.
    var sessionID: String? = nil
    var sessionKind: String? = nil
    /// Why a session ended: logout, password_changed, refresh_token_reused, revoked.
    var reason: String? = nil
    /// Who made the change, when it was not the user themself: an admin's user id, or `operator`
    /// for a change made on the identity host (`tally identity`, `tally up --admin`).
    var by: String? = nil

    var type: String { kind.rawValue }
    var subject: String? { userID }

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case username, roles, role, reason, by
        case userKind = "kind"
        case sessionID = "session_id"
        case sessionKind = "session_kind"
    }

    static func userCreated(_ user: UserRecord, by: String?) -> IdentityEvent {
        IdentityEvent(kind: .userCreated, userID: user.userID, username: user.username, roles: user.roles, userKind: user.kind, by: by)
    }

    static func role(_ kind: Kind, _ role: String, of user: UserRecord, roles: [String], by: String) -> IdentityEvent {
        IdentityEvent(kind: kind, userID: user.userID, username: user.username, roles: roles, role: role, by: by)
    }

    static func sessionStarted(_ id: String, kind: SessionRecord.Kind, of user: UserRecord) -> IdentityEvent {
        IdentityEvent(kind: .sessionStarted, userID: user.userID, username: user.username, sessionID: id, sessionKind: kind.rawValue)
    }

    static func sessionEnded(_ id: String, of user: UserRecord, reason: SessionRecord.EndReason) -> IdentityEvent {
        IdentityEvent(kind: .sessionEnded, userID: user.userID, username: user.username, sessionID: id, reason: reason.rawValue)
    }
}
