import TallyStorage
import TallyProtocol

/// What happened to people, roles and sessions, as the identity service's outbox records it
/// (schemas/events/identity.*.json). Events never carry a password, a hash or a token: only who,
/// what, and which session. Every event's data names the user (`user_id`, `username`); its
/// subject is the user's id.
enum IdentityEvent: ServiceEvent {
    case userCreated(UserCreated)
    case roleGranted(RoleChanged)
    case roleRevoked(RoleChanged)
    case passwordChanged(PasswordChanged)
    case sessionStarted(SessionStarted)
    case sessionEnded(SessionEnded)

    var type: String {
        switch self {
        case .userCreated: "identity.user_created"
        case .roleGranted: "identity.role_granted"
        case .roleRevoked: "identity.role_revoked"
        case .passwordChanged: "identity.password_changed"
        case .sessionStarted: "identity.session_started"
        case .sessionEnded: "identity.session_ended"
        }
    }

    var payload: any EventPayload {
        switch self {
        case .userCreated(let data): data
        case .roleGranted(let data), .roleRevoked(let data): data
        case .passwordChanged(let data): data
        case .sessionStarted(let data): data
        case .sessionEnded(let data): data
        }
    }

    /// Whom an event is about, as every identity event's data names them.
    struct EventUser: Encodable, Sendable {
        let userID: String
        let username: String

        init(_ user: UserRecord) {
            userID = user.userID
            username = user.username
        }
    }

    /// An event about one user, whose subject is the user's id.
    protocol UserEventPayload: EventPayload {
        var user: EventUser { get }
    }

    struct UserCreated: UserEventPayload {
        @Inlined var user: EventUser
        let roles: [String]
        let kind: UserKind
        /// Who made the change, when it was not the user themself: an admin's user id, or
        /// `operator` for a change made on the identity host (`tally identity`, `tally up --admin`).
        let by: String?

        init(_ user: UserRecord, by: String?) {
            self.user = EventUser(user)
            roles = user.roles
            kind = user.kind
            self.by = by
        }
    }

    /// A role granted or revoked, with the user's roles after the change.
    struct RoleChanged: UserEventPayload {
        @Inlined var user: EventUser
        let roles: [String]
        let role: String
        /// The admin who made the change, or `operator`.
        let by: String

        init(_ role: String, of user: UserRecord, roles: [String], by: String) {
            self.user = EventUser(user)
            self.roles = roles
            self.role = role
            self.by = by
        }
    }

    struct PasswordChanged: UserEventPayload {
        @Inlined var user: EventUser

        init(of user: UserRecord) {
            self.user = EventUser(user)
        }
    }

    struct SessionStarted: UserEventPayload {
        @Inlined var user: EventUser
        let sessionID: String
        let sessionKind: String

        init(_ id: String, kind: SessionRecord.Kind, of user: UserRecord) {
            self.user = EventUser(user)
            sessionID = id
            sessionKind = kind.rawValue
        }
    }

    struct SessionEnded: UserEventPayload {
        @Inlined var user: EventUser
        let sessionID: String
        /// Why it ended: logout, password_changed, refresh_token_reused, revoked.
        let reason: String

        init(_ id: String, of user: UserRecord, reason: SessionRecord.EndReason) {
            self.user = EventUser(user)
            sessionID = id
            self.reason = reason.rawValue
        }
    }
}

extension IdentityEvent.UserEventPayload {
    var subject: String? { user.userID }
}
