import Foundation
import TallyIdentity
import TallyProtocol
import Testing

/// Roles, service accounts, and what is never stored or published.
@Suite struct RolesAndServiceTokenTests {
    let admin = Caller(userID: "1", username: "olga", roles: ["admin"], sessionID: "s")

    @Test func anAdminGrantsAndRevokesRolesButNeverTheLastAdmin() throws {
        let identity = try IdentityHarness()
        try identity.signUp("olga")
        try identity.signUp("ann")
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
        #expect(types.filter { $0 == "identity.role_granted" }.count == 2)
        #expect(types.filter { $0 == "identity.role_revoked" }.count == 1)
    }

    @Test func aServiceTokenTradesForAccessTokensUntilItIsRevoked() throws {
        let identity = try IdentityHarness()
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
        let events = try JSONEncoder().encode(try identity.events())
        for secret in secrets {
            #expect(stored.range(of: Data(secret.utf8)) == nil, "stored: \(secret.prefix(12))…")
            #expect(events.range(of: Data(secret.utf8)) == nil, "published: \(secret.prefix(12))…")
        }
        let types = Set(try identity.events().map(\.type))
        #expect(types == [
            "identity.user_created", "identity.session_started", "identity.password_changed", "identity.session_ended",
        ])
    }
}
