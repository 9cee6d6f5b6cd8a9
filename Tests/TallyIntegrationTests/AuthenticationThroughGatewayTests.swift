import Foundation
import TallyAuth
import TallyProtocol
import TallyTesting
import Testing

/// Who may call what, through real processes: a gateway, an identity worker and other workers,
/// each checking tokens on its own with the stack's public key.
@Suite struct AuthenticationThroughGatewayTests {
    @Test func signUpLogInAndAskWhoIAm() async throws {
        try await TallyStack.with(workers: ["identity": 1]) { stack in
            let ann = try await stack.signUpAndLogIn("ann")
            let whoami = try await stack.client(timeout: TallyStack.identityTimeout).call("identity.whoami", token: ann.accessToken)
            #expect(whoami.result?["user"]?["username"] == "ann", "\(whoami)")
            #expect(whoami.result?["user"]?["user_id"] == .string(ann.userID))
            #expect(whoami.result?["session_id"] == ann.result["session_id"])
        }
    }

    @Test func aCallerIsWhoTheirTokenSaysWhateverTheArgsSay() async throws {
        try await TallyStack.with(workers: ["identity": 1]) { stack in
            let ann = try await stack.signUpAndLogIn("ann")
            let bo = try await stack.signUpAndLogIn("bo")
            let client = try stack.client(timeout: TallyStack.identityTimeout)
            #expect(try await client.call("identity.whoami", token: bo.accessToken).result?["user"]?["username"] == "bo")
            let named = try await client.call("identity.whoami", ["user_id": .string(ann.userID)], token: bo.accessToken)
            #expect(named.error?.code == .invalidArgument, "\(named)")
            // Bo logging out ends Bo's session only.
            #expect(try await client.call("identity.logout", token: bo.accessToken).result == ["ended_sessions": 1])
            let annRefresh = try await client.call("identity.refresh", ["refresh_token": .string(ann.refreshToken)])
            #expect(annRefresh.isOK, "\(annRefresh)")
            let boRefresh = try await client.call("identity.refresh", ["refresh_token": .string(bo.refreshToken)])
            #expect(boRefresh.error?.code == .unauthenticated)
        }
    }

    @Test func noTokenAnExpiredOneAndAForgedOneAreUnauthenticated() async throws {
        try await TallyStack.with(workers: ["identity": 1]) { stack in
            let client = try stack.client(timeout: TallyStack.identityTimeout)
            let missing = try await client.call("identity.whoami")
            #expect(missing.error?.code == .unauthenticated)
            #expect(missing.error?.field == "token")
            #expect(missing.error?.message.contains("needs a signed-in caller") == true, "\(missing)")

            let old = try stack.accessToken(for: "ann", issuedAt: Date().addingTimeInterval(-3600), lifetime: .seconds(300))
            let expired = try await client.call("identity.whoami", token: old)
            #expect(expired.error?.code == .unauthenticated)
            #expect(expired.error?.message.contains("expired at") == true, "\(expired)")

            // Signed with a key of the same name that is not the stack's.
            let impostor = try TokenSigningKey.generate(id: stack.signingKey.id)
            let claims = AccessTokenClaims(subject: "1", username: "ann", roles: ["admin"], sessionID: "s", now: Date(), lifetime: .seconds(300))
            let forged = try await client.call("identity.users", token: try AccessTokenSigner(key: impostor).sign(claims))
            #expect(forged.error?.code == .unauthenticated)
            #expect(forged.error?.message.contains("does not verify") == true, "\(forged)")

            let garbage = try await client.call("identity.whoami", token: "not-a-token")
            #expect(garbage.error?.code == .unauthenticated)
        }
    }

    @Test func aCallerWithoutTheRoleIsDeniedAndAnAdminIsNot() async throws {
        try await TallyStack.with(workers: ["identity": 1, "accounts": 1]) { stack in
            let ann = try await stack.signUpAndLogIn("ann")
            let client = try stack.client(timeout: TallyStack.identityTimeout)
            let denied = try await client.call("identity.users", token: ann.accessToken)
            #expect(denied.error?.code == .permissionDenied, "\(denied)")
            #expect(denied.error?.message.contains("needs the role 'admin'") == true)

            try await stack.addUser("olga", roles: ["admin"])
            let olga = try await stack.logIn("olga")
            let users = try await client.call("identity.users", token: olga.accessToken)
            #expect(users.result?["users"]?.arrayValue?.map { $0["username"] } == ["ann", "olga"], "\(users)")
            let granted = try await client.call("identity.grant_role", ["username": "ann", "role": "manager"], token: olga.accessToken)
            #expect(granted.result?["roles"] == ["manager"])

            // Another service's service-only command: a person's token is denied, a service's is not.
            let personal = try await client.call("accounts.events", token: olga.accessToken)
            #expect(personal.error?.code == .permissionDenied, "\(personal)")
            let service = try await client.call("accounts.events", token: try stack.serviceAccessToken())
            #expect(service.result?["last_sequence"] == 0, "\(service)")
        }
    }

    @Test func openCommandsIgnoreTokensEvenBadOnes() async throws {
        try await TallyStack.with(workers: ["calc": 1]) { stack in
            let reply = try await stack.client(timeout: TallyStack.identityTimeout).call(
                "calc.tip", ["amount": "84.00", "tip_percent": "18", "currency": "USD"], token: "not-a-token")
            #expect(reply.result?["tip"] == "15.12", "\(reply)")
        }
    }

    @Test func refreshRotatesAndLogoutRevokes() async throws {
        try await TallyStack.with(workers: ["identity": 1]) { stack in
            let ann = try await stack.signUpAndLogIn("ann")
            let client = try stack.client(timeout: TallyStack.identityTimeout)
            let next = try await client.call("identity.refresh", ["refresh_token": .string(ann.refreshToken)])
            let newRefresh = try #require(next.result?["refresh_token"]?.stringValue, "\(next)")
            let newAccess = try #require(next.result?["access_token"]?.stringValue)

            let old = try await client.call("identity.refresh", ["refresh_token": .string(ann.refreshToken)])
            #expect(old.error?.code == .unauthenticated, "the old refresh token is refused: \(old)")
            // Its reuse ended the session: the new one is refused too; log in again.
            #expect(try await client.call("identity.refresh", ["refresh_token": .string(newRefresh)]).error?.code == .unauthenticated)

            let again = try await stack.logIn("ann")
            #expect(try await client.call("identity.logout", token: again.accessToken).result == ["ended_sessions": 1])
            let afterLogout = try await client.call("identity.refresh", ["refresh_token": .string(again.refreshToken)])
            #expect(afterLogout.error?.message.contains("logged out") == true, "\(afterLogout)")
            // The identity service itself checks the session, so its own commands refuse at once.
            #expect(try await client.call("identity.whoami", token: again.accessToken).error?.code == .unauthenticated)
            _ = newAccess
        }
    }

    /// The hole an outside trial found: a logged-out or demoted admin's access token still ran
    /// identity's admin commands until it expired, and could make an admin service token that
    /// never expires. Identity's privileged commands now confirm the caller's session and roles.
    @Test func aLoggedOutOrDemotedAdminIsRefusedByEveryPrivilegedCommandAtOnce() async throws {
        try await TallyStack.with(workers: ["identity": 1]) { stack in
            try await stack.addUser("olga", roles: ["admin"])
            try await stack.addUser("max", roles: ["admin"])
            let olga = try await stack.logIn("olga")
            let max = try await stack.logIn("max")
            _ = try await stack.signUpAndLogIn("ann")
            let client = try stack.client(timeout: TallyStack.identityTimeout)
            let privileged: [(String, JSONValue)] = [
                ("identity.users", [:]),
                ("identity.grant_role", ["username": "ann", "role": "admin"]),
                ("identity.revoke_role", ["username": "olga", "role": "admin"]),
                ("identity.issue_service_token", ["name": "backdoor", "roles": ["admin"]]),
                ("identity.revoke_service_token", ["name": "notifier"]),
            ]
            #expect(try await client.call("identity.users", token: max.accessToken).isOK)

            let demoted = try await client.call("identity.revoke_role", ["username": "max", "role": "admin"], token: olga.accessToken)
            #expect(demoted.result?["roles"] == [], "\(demoted)")
            for (command, args) in privileged {
                let reply = try await client.call(command, args, token: max.accessToken)
                #expect(reply.error?.code == .permissionDenied, "\(command) with a demoted admin's token: \(reply)")
            }

            #expect(try await client.call("identity.logout", token: olga.accessToken).result == ["ended_sessions": 1])
            let password: JSONValue = ["current_password": "correct horse battery staple", "new_password": "a new long password"]
            for (command, args) in privileged + [("identity.change_password", password), ("identity.whoami", [:])] {
                let reply = try await client.call(command, args, token: olga.accessToken)
                #expect(reply.error?.code == .unauthenticated, "\(command) with a logged-out admin's token: \(reply)")
                #expect(reply.error?.field == "token")
            }

            // Nothing the refused tokens asked for happened: the admin logs in again and looks.
            let again = try await stack.logIn("olga")
            let users = try await client.call("identity.users", token: again.accessToken)
            #expect(users.result?["users"]?.arrayValue?.compactMap { $0["username"]?.stringValue } == ["olga", "max", "ann"], "\(users)")
            #expect(users.result?["users"]?.arrayValue?.first { $0["username"] == "ann" }?["roles"] == [])
        }
    }
}
