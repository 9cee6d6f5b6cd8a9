import Foundation
import Logging
import TallyAuth
import TallyProtocol
import TallyWorker
import Testing

/// The middleware in a worker's request processor, in-process: who gets through to which command.
@Suite struct AuthenticationMiddlewareTests {
    /// A service with one command of each access, each answering with the caller it was handed.
    struct Probe: ServiceHandler {
        struct Seen: Encodable, Sendable {
            let caller: String?
            let roles: [String]
        }

        static let table = CommandTable<Int>("probe") { table in
            table.query("probe.open", access: .open, "Anyone.", answer)
            table.query("probe.user", access: .user, "A signed-in caller.", answer)
            table.query("probe.admin", access: .role("admin"), "An admin.", answer)
        }

        static func answer(_ args: Arguments, _ context: RequestContext, _ resources: Int) throws -> Seen {
            Seen(caller: context.caller?.userID, roles: context.caller?.roles.sorted() ?? [])
        }

        let resources = 0
    }

    let key = try! TokenSigningKey.generate(id: "k1")

    func processor(middleware: Bool = true) -> RequestProcessor {
        RequestProcessor(
            handler: Probe(),
            middleware: middleware ? [AuthenticationMiddleware(verifier: AccessTokenVerifier(keys: [key.verificationKey]))] : [],
            logger: Logger(label: "test"))
    }

    func token(roles: [String] = [], issuedAt: Date = Date()) throws -> String {
        try AccessTokenSigner(key: key).sign(
            AccessTokenClaims(subject: "7", username: "ann", roles: roles, sessionID: "s", now: issuedAt, lifetime: .seconds(300)))
    }

    func reply(_ command: String, token: String? = nil, middleware: Bool = true) throws -> Reply {
        try Reply.decode(processor(middleware: middleware).process(Envelope(command: command, token: token)))
    }

    @Test func openCommandsRunForAnyoneAndIgnoreTokens() throws {
        #expect(try reply("probe.open").result == ["roles": []], "no caller")
        #expect(try reply("probe.open", token: "garbage").isOK)
        // Not even a valid token is read: open commands do not know who calls.
        #expect(try reply("probe.open", token: token()).result == ["roles": []])
    }

    @Test func userCommandsGetTheCallerOfAValidToken() throws {
        #expect(try reply("probe.user", token: token(roles: ["manager"])).result == ["caller": "7", "roles": ["manager"]])
        let missing = try reply("probe.user").error
        #expect(missing?.code == .unauthenticated)
        #expect(missing?.field == "token")
        let expired = try reply("probe.user", token: token(issuedAt: Date().addingTimeInterval(-3600))).error
        #expect(expired?.code == .unauthenticated)
        #expect(expired?.message.contains("expired") == true)
    }

    @Test func roleCommandsNeedTheRole() throws {
        #expect(try reply("probe.admin", token: token(roles: ["admin"])).result?["caller"] == "7")
        let denied = try reply("probe.admin", token: token(roles: ["manager"])).error
        #expect(denied?.code == .permissionDenied)
        #expect(denied?.message == "probe.admin needs the role 'admin'; ann has the roles manager (an admin grants roles with identity.grant_role; a new role shows in the next token, after identity.refresh)")
        #expect(try reply("probe.admin").error?.code == .unauthenticated)
    }

    @Test func aWorkerWithoutTheMiddlewareRefusesCommandsThatNeedACaller() throws {
        #expect(try reply("probe.open", middleware: false).isOK)
        #expect(try reply("probe.user", token: token(), middleware: false).error?.code == .unauthenticated)
        #expect(try reply("probe.admin", token: token(roles: ["admin"]), middleware: false).error?.code == .unauthenticated)
    }
}
