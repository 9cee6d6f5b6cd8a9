import Foundation
import TallyIdentity
import TallyProtocol
import Testing

/// Roles, service accounts, and what is never stored or published.
@Suite struct RolesAndServiceTokenTests {
    @Test func anAdminGrantsAndRevokesRolesButNeverTheLastAdmin() throws {
        let identity = try IdentityHarness()
        let admin = try identity.signedInAdmin("olga")
        try identity.signUp("ann")
        // Granting a role held already changes nothing and records nothing.
        #expect(try identity.call("identity.grant_role", ["username": "olga", "role": "admin"], as: admin)["roles"] == ["admin"])
        #expect(try identity.call("identity.grant_role", ["username": "ann", "role": "manager"], as: admin)["roles"] == ["manager"])
        // The role shows in the next token.
        #expect(try identity.caller(of: identity.logIn("ann")["access_token"]).roles == ["manager"])

        let last = identity.error("identity.revoke_role", ["username": "olga", "role": "admin"], as: admin)
        #expect(last?.code == .failedPrecondition)
        #expect(try identity.call("identity.revoke_role", ["username": "ann", "role": "manager"], as: admin)["roles"] == [])
        #expect(identity.error("identity.grant_role", ["username": "nobody", "role": "admin"], as: admin)?.code == .notFound)
        #expect(identity.error("identity.grant_role", ["username": "ann", "role": "Admin!"], as: admin)?.field == "args.role")

        let page = try identity.call("identity.users", ["limit": 1], as: admin)
        #expect(page["users"]?.arrayValue?.map { $0["username"] } == ["olga"])
        #expect(page["more"] == true)
        let types = try identity.events().map(\.type)
        #expect(types.filter { $0 == "identity.role_granted" }.count == 1)
        #expect(types.filter { $0 == "identity.role_revoked" }.count == 1)
    }

    @Test func aServiceTokenTradesForAccessTokensUntilItIsRevoked() throws {
        let identity = try IdentityHarness()
        let admin = try identity.signedInAdmin("olga")
        let issued = try identity.call("identity.issue_service_token", ["name": "notifier"], as: admin)
        let token = try #require(issued["service_token"])
        #expect(token.stringValue?.hasPrefix("tally_st_") == true)
        #expect(issued["user"]?["roles"] == ["service"])

        let access = try identity.call("identity.service_login", ["service_token": token])
        #expect(access["refresh_token"] == nil)
        let caller = try identity.caller(of: access["access_token"])
        #expect(caller.roles == ["service"])
        #expect(caller.username == "notifier")

        // A service account has no password to log in with.
        #expect(identity.error("identity.login", ["username": "notifier", "password": "any password at all"])?.code == .unauthenticated)
        // And a person's name cannot become one.
        try identity.signUp("ann")
        #expect(identity.error("identity.issue_service_token", ["name": "ann"], as: admin)?.code == .alreadyExists)

        #expect(try identity.call("identity.revoke_service_token", ["name": "notifier"], as: admin) == ["ended_sessions": 1])
        let revoked = try #require(identity.error("identity.service_login", ["service_token": token]))
        #expect(revoked.code == .unauthenticated)
        #expect(revoked.message.contains("revoked"))
    }

    @Test func noPasswordOrTokenIsEverStoredOrPublished() throws {
        let identity = try IdentityHarness()
        let admin = try identity.signedInAdmin("olga")
        let password = "a rather unusual secret phrase"
        let newPassword = "another unusual secret phrase"
        try identity.call("identity.signup", ["username": "ann", "password": .string(password)], key: "signup-1")
        let login = try identity.call("identity.login", ["username": "ann", "password": .string(password)], key: "login-1")
        let refreshed = try identity.call("identity.refresh", ["refresh_token": login["refresh_token"] ?? .null], key: "refresh-1")
        let caller = try identity.caller(of: refreshed["access_token"])
        try identity.call(
            "identity.change_password", ["current_password": .string(password), "new_password": .string(newPassword)], as: caller,
            key: "change-1")
        let service = try identity.call("identity.issue_service_token", ["name": "notifier"], as: admin, key: "issue-1")

        let issued = [
            login["refresh_token"], login["access_token"], refreshed["refresh_token"], refreshed["access_token"], service["service_token"],
        ]
        let secrets = [password, newPassword] + issued.compactMap { $0?.stringValue }
        #expect(secrets.count == 7)
        let stored = try identity.storedBytes()
        // The search below means something only if the service's data is in what it reads.
        #expect(stored.range(of: Data("identity.user_created".utf8)) != nil)
        let events = try TallyJSON.encode(try identity.events())
        for secret in secrets {
            #expect(stored.range(of: Data(secret.utf8)) == nil, "stored: \(secret.prefix(12))…")
            #expect(events.range(of: Data(secret.utf8)) == nil, "published: \(secret.prefix(12))…")
        }
        let types = Set(try identity.events().map(\.type))
        #expect(types == [
            "identity.user_created", "identity.session_started", "identity.password_changed", "identity.session_ended",
        ])
    }

    /// Every privileged command of identity with the args it needs, for the checks below.
    static let privileged: [(String, JSONValue)] = [
        ("identity.users", [:]),
        ("identity.grant_role", ["username": "ann", "role": "manager"]),
        ("identity.revoke_role", ["username": "ann", "role": "manager"]),
        ("identity.issue_service_token", ["name": "reporter"]),
        ("identity.revoke_service_token", ["name": "reporter"]),
    ]

    @Test func aLoggedOutAdminsTokenRunsNoPrivilegedCommand() throws {
        let identity = try IdentityHarness()
        let olga = try identity.signedInAdmin("olga")
        try identity.signUp("ann")
        #expect(try identity.call("identity.users", as: olga)["users"]?.arrayValue?.count == 2)
        #expect(try identity.call("identity.logout", as: olga) == ["ended_sessions": 1])
        for (command, args) in Self.privileged + [("identity.whoami", [:])] {
            let refused = identity.error(command, args, as: olga)
            #expect(refused?.code == .unauthenticated, "\(command): \(String(describing: refused))")
            #expect(refused?.message.contains("session has ended (it was logged out)") == true, "\(command)")
        }
        let password = identity.error(
            "identity.change_password", ["current_password": .string(IdentityHarness.password), "new_password": "a new long password"], as: olga)
        #expect(password?.code == .unauthenticated)
        // Nothing ran: no service account was made.
        #expect(try identity.events().filter { $0.type == "identity.user_created" }.count == 2)
    }

    @Test func aDemotedAdminsTokenRunsNoAdminCommandButARoleGrantedNowCounts() throws {
        let identity = try IdentityHarness()
        let olga = try identity.signedInAdmin("olga")
        let max = try identity.signedInAdmin("max")
        try identity.signUp("ann")
        #expect(try identity.call("identity.revoke_role", ["username": "max", "role": "admin"], as: olga)["roles"] == [])
        // Max's token still says admin; identity reads his roles as they are now.
        #expect(max.roles == ["admin"])
        for (command, args) in Self.privileged {
            let refused = identity.error(command, args, as: max)
            #expect(refused?.code == .permissionDenied, "\(command): \(String(describing: refused))")
            #expect(refused?.message.contains("max has no roles") == true, "\(command)")
        }
        // Ann's token was signed without admin; granted it now, she is an admin to identity at once.
        let ann = try identity.caller(of: identity.logIn("ann")["access_token"])
        #expect(identity.error("identity.users", as: ann)?.code == .permissionDenied)
        try identity.call("identity.grant_role", ["username": "ann", "role": "admin"], as: olga)
        #expect(try identity.call("identity.users", as: ann)["users"]?.arrayValue?.count == 3)
    }
}
