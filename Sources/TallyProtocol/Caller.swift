/// Who is asking: the person a verified token names, with the roles it grants. Set by the worker's
/// authentication middleware; a handler never reads a user id from its args.
public struct Caller: Sendable, Equatable {
    /// The person's stable id, as the identity service gives it out.
    public let userID: String
    /// The name they sign in with, for messages and logs.
    public let username: String
    /// Roles the token grants: `admin`, `service`.
    public let roles: Set<String>
    /// The session the token belongs to (a login, or a service token), when it names one: what
    /// logging out ends.
    public let sessionID: String?

    public init(userID: String, username: String, roles: Set<String> = [], sessionID: String? = nil) {
        self.userID = userID
        self.username = username
        self.roles = roles
        self.sessionID = sessionID
    }

    public func has(role: String) -> Bool { roles.contains(role) }
}
