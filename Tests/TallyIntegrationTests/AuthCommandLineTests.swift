import Foundation
import TallyProtocol
import TallyTesting
import Testing

/// `tally login`, `tally call` with a stored login, `tally logout`, `tally keys signing`, as a
/// person runs them (the config directory is the test's own).
@Suite struct AuthCommandLineTests {
    private func tally(
        _ arguments: [String], in stack: TallyStack, environment: [String: String] = [:], input: String? = nil
    ) async throws -> (status: Int32, log: String) {
        let process = try stack.launch("cli", arguments, environment: environment, input: input.map { Data($0.utf8) })
        #expect(await process.waitForExit(timeout: .seconds(90)))
        return (process.exitStatus ?? -1, process.log)
    }

    @Test func loginStoresTheTokensPrivatelyCallSendsAndRefreshesThemAndLogoutForgetsThem() async throws {
        try await TallyStack.with(workers: ["identity": 1]) { stack in
            _ = try await stack.signUpAndLogIn("ann")
            let config = stack.directory.appendingPathComponent("config").path
            let environment = ["XDG_CONFIG_HOME": config]
            // Generous: hashing a password is slow on purpose, and slower on a loaded machine.
            let endpoint = ["--endpoint", stack.frontend, "--timeout-ms", "30000"]

            let wrong = try await tally(["login", "ann", "--password-stdin"] + endpoint, in: stack, environment: environment, input: "nope nope nope\n")
            #expect(wrong.status == 1)
            #expect(wrong.log.contains("the username or password is wrong"))

            let login = try await tally(
                ["login", "ann", "--password-stdin"] + endpoint, in: stack, environment: environment, input: "correct horse battery staple\n")
            #expect(login.status == 0, "\(login.log)")
            let file = "\(config)/tally/logins.json"
            #expect((try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int) == 0o600)

            let stored = try TallyJSON.decode([String: [String: String]].self, from: Data(contentsOf: URL(fileURLWithPath: file)))
            let whoami = try await tally(["call", "identity.whoami"] + endpoint, in: stack, environment: environment)
            #expect(whoami.status == 0, "\(whoami.log)")
            #expect(whoami.log.contains(#""username":"ann""#))

            // A fresh access token is sent as stored; one past its expiry is refreshed before the
            // call, and the new tokens stored.
            var logins = try TallyJSON.decode([String: [String: String]].self, from: Data(contentsOf: URL(fileURLWithPath: file)))
            #expect(logins == stored, "a fresh token needs no refresh")
            let before = try #require(logins[stack.frontend]?["refresh_token"])
            logins[stack.frontend]?["expires_at"] = "2020-01-01T00:00:00.000Z"
            try TallyJSON.encode(logins).write(to: URL(fileURLWithPath: file))
            let refreshed = try await tally(["call", "identity.whoami"] + endpoint, in: stack, environment: environment)
            #expect(refreshed.status == 0, "\(refreshed.log)")
            let after = try TallyJSON.decode([String: [String: String]].self, from: Data(contentsOf: URL(fileURLWithPath: file)))
            #expect(after[stack.frontend]?["refresh_token"] != before)

            let logout = try await tally(["logout"] + endpoint, in: stack, environment: environment)
            #expect(logout.status == 0, "\(logout.log)")
            let gone = try await tally(["call", "identity.whoami"] + endpoint, in: stack, environment: environment)
            #expect(gone.status == 1)
            #expect(gone.log.contains("unauthenticated"))
        }
    }

    @Test func aStoredLoginOthersCanReadIsRefused() async throws {
        try await TallyStack.with(workers: ["identity": 1]) { stack in
            _ = try await stack.signUpAndLogIn("ann")
            let config = stack.directory.appendingPathComponent("config").path
            let environment = ["XDG_CONFIG_HOME": config]
            // Generous: hashing a password is slow on purpose, and slower on a loaded machine.
            let endpoint = ["--endpoint", stack.frontend, "--timeout-ms", "30000"]
            _ = try await tally(
                ["login", "ann", "--password-stdin"] + endpoint, in: stack, environment: environment, input: "correct horse battery staple\n")
            chmod("\(config)/tally/logins.json", 0o644)
            let call = try await tally(["call", "identity.whoami"] + endpoint, in: stack, environment: environment)
            #expect(call.status != 0)
            #expect(call.log.contains("chmod 600"), "\(call.log)")
        }
    }

    @Test func keysSigningWritesAPrivateAndAPublicFileAndNeverOverwrites() async throws {
        let stack = try TallyStack()
        let directory = stack.directory.appendingPathComponent("operator-keys").path
        let made = try await tally(["keys", "signing", "tally-2026-11", "--dir", directory], in: stack)
        let again = try await tally(["keys", "signing", "tally-2026-11", "--dir", directory], in: stack)
        let modes = ["private", "public"].map { kind in
            (try? FileManager.default.attributesOfItem(atPath: "\(directory)/tally-2026-11.\(kind).jwk")[.posixPermissions] as? Int) ?? -1
        }
        await stack.stop()
        #expect(made.status == 0, "\(made.log)")
        #expect(modes == [0o600, 0o644])
        #expect(again.status != 0)
        #expect(again.log.contains("exists already"))
    }
}
