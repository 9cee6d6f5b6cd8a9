import Foundation
import TallyAuth
import TallyIdentity
import TallyProtocol
import Testing

/// Sign-up, login, whoami, refresh and logout, in-process on a real database.
@Suite struct SessionTests {
    @Test func signUpLogInAndAskWhoIAm() throws {
        let identity = try IdentityHarness()
        let user = try identity.signUp("Ann")
        #expect(user["username"] == "ann", "usernames are kept in lower case")
        #expect(user["roles"] == [])
        #expect(user["kind"] == "person")
        let userID = try #require(user["user_id"]?.stringValue)

        let login = try identity.logIn("ann")
        #expect(login["user"] == ["user_id": .string(userID), "username": "ann", "roles": []])
        #expect(login["expires_in"] == 300)
        #expect(login["refresh_token"]?.stringValue?.hasPrefix("tally_rt_") == true)
        let caller = try identity.caller(of: login["access_token"])
        #expect(caller.userID == userID)
        #expect(caller.username == "ann")
        #expect(caller.sessionID == login["session_id"]?.stringValue)

        let whoami = try identity.call("identity.whoami", as: caller)
        #expect(whoami["user"]?["user_id"] == .string(userID))
        #expect(whoami["session_id"] == login["session_id"])
        #expect(whoami["session_kind"] == "login")
    }

    @Test func aWrongPasswordAndAnUnknownUserGetTheSameAnswer() throws {
        let identity = try IdentityHarness()
        try identity.signUp("ann")
        let wrong = identity.error("identity.login", ["username": "ann", "password": "not her password"])
        let unknown = identity.error("identity.login", ["username": "nobody", "password": "not her password"])
        #expect(wrong == TallyError(.unauthenticated, "the username or password is wrong"))
        #expect(unknown == wrong)
    }

    @Test func aTakenUsernameIsRefusedAndASignupRetriedWithItsKeyIsAnsweredAsBefore() throws {
        let identity = try IdentityHarness()
        let first = try identity.call("identity.signup", ["username": "ann", "password": "first password"], key: "k-1")
        let retry = try identity.call("identity.signup", ["username": "ann", "password": "first password"], key: "k-1")
        #expect(retry == first)
        #expect(identity.error("identity.signup", ["username": "ANN", "password": "other password"], key: "k-2")?.code == .alreadyExists)
        #expect(try identity.events().filter { $0.type == "identity.user_created" }.count == 1)
    }

    @Test(arguments: [
        (["username": "ann", "password": "short"] as JSONValue, "args.password"),
        (["username": "-ann", "password": "long enough"] as JSONValue, "args.username"),
        (["username": "an n", "password": "long enough"] as JSONValue, "args.username"),
        (["username": "ann"] as JSONValue, "args.password"),
        (["username": "ann", "password": "long enough", "admin": true] as JSONValue, "args.admin"),
    ])
    func badSignupsSayWhichFieldIsWrong(_ args: JSONValue, _ field: String) throws {
        let identity = try IdentityHarness()
        let error = try #require(identity.error("identity.signup", args))
        #expect(error.code == .invalidArgument)
        #expect(error.field == field)
    }

    @Test func aRefreshTokenWorksOnceAndASecondUseEndsTheSession() throws {
        let identity = try IdentityHarness()
        try identity.signUp("ann")
        let login = try identity.logIn("ann")
        let second = try identity.refresh(login["refresh_token"])
        #expect(second["session_id"] == login["session_id"])
        #expect(second["refresh_token"] != login["refresh_token"])
        #expect(try identity.caller(of: second["access_token"]).userID == identity.caller(of: login["access_token"]).userID)

        // The old one again: someone else may hold it. Refused, and the whole session ends.
        let reused = try #require(identity.error("identity.refresh", ["refresh_token": login["refresh_token"] ?? .null]))
        #expect(reused.code == .unauthenticated)
        #expect(reused.message.contains("used before"))
        let after = try #require(identity.error("identity.refresh", ["refresh_token": second["refresh_token"] ?? .null]))
        #expect(after.message.contains("has ended"), "\(after)")
        let ended = try identity.events().filter { $0.type == "identity.session_ended" }
        #expect(ended.map { $0.data["reason"] } == ["refresh_token_reused"])
    }

    @Test func strangeRefreshTokensAreRefused() throws {
        let identity = try IdentityHarness()
        for token: JSONValue in ["", "tally_rt_short", .string("tally_rt_" + String(repeating: "A", count: 43)), "tally_st_x"] {
            #expect(identity.error("identity.refresh", ["refresh_token": token])?.code == .unauthenticated, "\(token)")
        }
    }

    @Test func logoutEndsOnlyThatSessionUnlessAllAreAskedFor() throws {
        let identity = try IdentityHarness()
        try identity.signUp("ann")
        let phone = try identity.logIn("ann")
        let laptop = try identity.logIn("ann")
        let phoneCaller = try identity.caller(of: phone["access_token"])

        #expect(try identity.call("identity.logout", as: phoneCaller) == ["ended_sessions": 1])
        let refused = try #require(identity.error("identity.refresh", ["refresh_token": phone["refresh_token"] ?? .null]))
        #expect(refused.message.contains("it was logged out"))
        #expect(identity.error("identity.whoami", as: phoneCaller)?.code == .unauthenticated)
        let laptopTokens = try identity.refresh(laptop["refresh_token"])

        #expect(try identity.call("identity.logout", ["all_sessions": true], as: try identity.caller(of: laptopTokens["access_token"])) == ["ended_sessions": 1])
        #expect(identity.error("identity.refresh", ["refresh_token": laptopTokens["refresh_token"] ?? .null])?.code == .unauthenticated)
    }

    @Test func commandsForACallerRefuseARequestWithoutOne() throws {
        let identity = try IdentityHarness()
        for command in ["identity.whoami", "identity.logout", "identity.change_password", "identity.grant_role"] {
            let args: JSONValue =
                command == "identity.change_password" ? ["current_password": "a password", "new_password": "another password"]
                : command == "identity.grant_role" ? ["username": "ann", "role": "admin"] : [:]
            #expect(identity.error(command, args)?.code == .unauthenticated, "\(command)")
        }
    }
}
