import TallyProtocol
import TallyStorage

/// What an operator does on the identity host itself, without the gateway and without a token:
/// the first admin (`tally up --admin`, `tally identity add-user`) and service tokens for programs
/// (`tally identity service-token`). The same records and events as the commands; the events name
/// `operator` as who made the change.
public struct IdentityAdministration {
    public let store: IdentityStore
    let passwordHashing: ScryptParameters

    /// Who events say made the change.
    static let actor = "operator"

    public init(store: IdentityStore, passwordHashing: ScryptParameters = .recommended) {
        self.store = store
        self.passwordHashing = passwordHashing
    }

    /// Makes `username` a person with `password` and `roles`; a person who exists already keeps
    /// their password and gets the roles they lack. Returns whether the user is new.
    @discardableResult
    public func addUser(_ username: String, password: String, roles: [String]) throws -> Bool {
        let name = try Username.check(username, field: "username")
        let roles = try roles.map { try RoleName.check($0, field: "role") }
        if let existing = try store.user(named: name) {
            guard existing.kind == .person else { throw TallyError(.alreadyExists, "'\(name)' is a service account") }
            try store.change(unkeyed: "identity.add_user") { change in
                _ = try IdentityStore.grant(roles, to: existing, &change, by: Self.actor)
            }
            return false
        }
        try Password.check(password, field: "password")
        let hash = try PasswordHasher.hash(password, parameters: passwordHashing)
        try store.change(unkeyed: "identity.add_user") { change in
            _ = try IdentityStore.createUser(&change, username: name, kind: .person, passwordHash: hash, roles: roles, by: Self.actor)
        }
        return true
    }

    /// A new service token for the service account `name` (made with `roles` if it does not exist).
    public func issueServiceToken(name: String, roles: [String] = ["service"]) throws -> String {
        let name = try Username.check(name, field: "name")
        let roles = try roles.map { try RoleName.check($0, field: "role") }
        return try store.issueServiceToken(command: "identity.issue_service_token", name: name, roles: roles, by: Self.actor)
            .serviceToken
    }

    /// A password for a new account, for an operator who did not choose one: 128 random bits.
    public static func generatePassword() -> String {
        OpaqueToken.randomText(bytes: 16)
    }
}
