import TallyAuth
import TallyProtocol
import TallyStorage
import TallyWorker

/// The identity service: people sign up and log in; sessions hand out short-lived signed access
/// tokens (which every worker checks by itself) and refresh tokens; admins manage roles and the
/// service tokens programs sign in with. Design and reasons: docs/security.md.
public struct IdentityService: ServiceHandler {
    public static let table = CommandTable<IdentityResources>("identity") { table in
        table.change("identity.signup", "Create a person's account: a username and a password.", SignupCommand.run)
        table.change("identity.login", "Start a session: access and refresh tokens for a username and password.", LoginCommand.run)
        table.change("identity.refresh", "Trade a refresh token (once) for a new access token and refresh token.", RefreshCommand.run)
        table.change("identity.logout", access: .user, "End the caller's session, or all their sessions.", LogoutCommand.run)
        table.query("identity.whoami", access: .user.confirmed, "The caller as the identity service knows them, and their session.", WhoamiCommand.run)
        table.change(
            "identity.change_password", access: .user.confirmed, "Change the caller's password; ends every session of theirs.",
            ChangePasswordCommand.run)
        table.change("identity.grant_role", access: .role(RoleName.admin).confirmed, "Give a user a role.", RoleCommands.grant)
        table.change("identity.revoke_role", access: .role(RoleName.admin).confirmed, "Take a role from a user.", RoleCommands.revoke)
        table.query("identity.users", access: .role(RoleName.admin).confirmed, "Every user and their roles, a page at a time.", UsersCommand.run)
        table.change(
            "identity.issue_service_token", access: .role(RoleName.admin).confirmed,
            "A new service token for a service account (made if needed), shown once.", ServiceTokenCommands.issue)
        table.change(
            "identity.revoke_service_token", access: .role(RoleName.admin).confirmed, "Revoke a service account's service tokens.",
            ServiceTokenCommands.revoke)
        table.query(
            "identity.service_login", "Trade a service token for an access token.", ServiceTokenCommands.login)
        table.eventFeed(\.store.store)
    }

    public let resources: IdentityResources
    /// Identity holds every session and role, so its privileged commands (`.confirmed`) take a
    /// token's caller as they are now: an ended session or a revoked role is refused at once.
    public var callerAuthority: (any CallerAuthority)? { SessionAuthority(store: resources.store) }

    /// - Parameter signingKey: the private key access tokens are signed with.
    public init(store: IdentityStore, signingKey: TokenSigningKey, settings: IdentitySettings = IdentitySettings()) throws {
        resources = IdentityResources(
            store: store, tokens: TokenIssuer(signer: AccessTokenSigner(key: signingKey), settings: settings),
            passwords: try PasswordHasher(parameters: settings.passwordHashing))
    }
}

/// What the identity service's commands run with.
public struct IdentityResources: Sendable {
    public let store: IdentityStore
    let tokens: TokenIssuer
    let passwords: PasswordHasher

    var settings: IdentitySettings { tokens.settings }
}
