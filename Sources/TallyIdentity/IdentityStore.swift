import TallyProtocol
import TallyStorage

/// The identity service's data: people and service accounts, roles, sessions, refresh and service
/// tokens, and failed logins, in one `ServiceStore` (`identity.sqlite`) with its event outbox.
public struct IdentityStore: ServiceData {
    public let store: ServiceStore

    /// Opens the identity data on `engine` and brings its schema up to date.
    public init(engine: any StorageEngine, eventSink: (any EventSink)? = nil, transactionObserver: (any TransactionObserver)? = nil) throws {
        store = try ServiceStore(service: "identity", engine: engine, migrations: IdentitySchema.migrations, sink: eventSink,
            observer: transactionObserver)
    }

    func user(named username: String) throws -> UserRecord? {
        try store.read { try UserRecord.find($0, username: username) }
    }

    /// Reserves a password check for `username` and commits it, before the password is checked:
    /// throws `resource_exhausted` while the username is locked (`LoginThrottle.reserveAttempt`).
    func reserveLoginAttempt(_ username: String, throttle: LoginThrottle, command: String) throws {
        try store.change(unkeyed: command) { change in
            try throttle.reserveAttempt(change.session, username: username, now: change.now)
        }
    }

    /// Adds a user (`kind` person with a password hash, or service without one) and records
    /// `identity.user_created`.
    static func createUser(
        _ change: inout Change, username: String, kind: UserKind, passwordHash: String?, roles: [String], by: String?
    ) throws -> UserRecord {
        let user = try UserRecord.insert(
            change.session, username: username, kind: kind, passwordHash: passwordHash, roles: roles, at: change.now)
        change.record(IdentityEvent.userCreated(.init(user, by: by)))
        return user
    }

    /// Gives `user` each of `roles` it lacks, recording `identity.role_granted` for each; returns
    /// the user as it is now.
    static func grant(_ roles: [String], to user: UserRecord, _ change: inout Change, by: String) throws -> UserRecord {
        var granted: [String] = []
        for role in Set(roles).sorted() where try user.grant(role, change.session, at: change.now) { granted.append(role) }
        guard !granted.isEmpty, let updated = try UserRecord.find(change.session, username: user.username) else { return user }
        for role in granted { change.record(IdentityEvent.roleGranted(.init(role, of: updated, roles: updated.roles, by: by))) }
        return updated
    }

    /// A new service token for the service account `name`, made with `roles` if it does not exist
    /// yet: a session of kind `service`, and the token's hash. The token is in the result only.
    func issueServiceToken(command: String, name: String, roles: [String], by: String) throws -> IssuedServiceToken {
        try store.change(unkeyed: command) { change in
            var user = try UserRecord.find(change.session, username: name)
            if let existing = user, existing.kind != .service {
                throw TallyError(
                    .alreadyExists, "'\(name)' is a person's username; give the service account a name of its own", field: "args.name")
            }
            if user == nil {
                user = try Self.createUser(&change, username: name, kind: .service, passwordHash: nil, roles: roles, by: by)
            }
            guard let user else { throw StorageFailure(location: "identity", detail: "service account \(name) vanished") }
            let session = try SessionRecord.start(change.session, user: user, kind: .service, at: change.now)
            let token = OpaqueToken.generate(.service)
            try change.session.execute("INSERT INTO service_token (token_hash, session_id) VALUES (\(token.hash), \(session))")
            change.record(IdentityEvent.sessionStarted(.init(session, kind: .service, of: user)))
            return IssuedServiceToken(serviceToken: token.text, sessionID: session, user: user.summary)
        }
    }
}
