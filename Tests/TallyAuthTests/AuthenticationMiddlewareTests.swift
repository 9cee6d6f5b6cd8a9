import Foundation
import Logging
import TallyAuth
import TallyProtocol
import TallyWorker
import Testing

/// The middleware in a worker's request processor, in-process: who gets through to which command.
@Suite struct AuthenticationMiddlewareTests {
    /// A service with one command of each access, each answering with the caller it was handed,
    /// and an authority that knows one ended session and has taken `admin` from user 7.
    struct Probe: ServiceHandler {
        struct Seen: Encodable, Sendable {
            let caller: String?
            let roles: [String]
        }

        struct Authority: CallerAuthority {
            func current(_ caller: Caller) throws -> Caller {
                if caller.sessionID == "ended" { throw TallyError(.unauthenticated, "this token's session has ended", field: "token") }
                return Caller(userID: caller.userID, username: caller.username, roles: caller.roles.subtracting(["admin"]), sessionID: caller.sessionID)
            }
        }

        static let table = CommandTable<Int>("probe") { table in
            table.query("probe.open", "Anyone.") { _, context, _ in Seen(caller: context.caller?.userID, roles: []) }
            table.query("probe.user", access: .user, "A signed-in caller.", answer)
            table.query("probe.admin", access: .role("admin"), "An admin.", answer)
            table.query("probe.confirmed_user", access: .user.confirmed, "A signed-in caller whose session is open.", answer)
            table.query("probe.confirmed_admin", access: .role("admin").confirmed, "An admin now.", answer)
        }

        static func answer(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ resources: Int) throws -> Seen {
            Seen(caller: caller.userID, roles: caller.roles.sorted())
        }

        let resources = 0
        var callerAuthority: (any CallerAuthority)? { Authority() }
    }

    let key = try! TokenSigningKey.generate(id: "k1")

    func processor(middleware: Bool = true) -> RequestProcessor {
        RequestProcessor(
            handler: Probe(),
            middleware: middleware ? [AuthenticationMiddleware(verifier: AccessTokenVerifier(keys: [key.verificationKey]))] : [],
            logger: Logger(label: "test"))
    }

    func token(roles: [String] = [], session: String = "s", issuedAt: Date = Date()) throws -> String {
        try AccessTokenSigner(key: key).sign(
            AccessTokenClaims(subject: "7", username: "ann", roles: roles, sessionID: session, now: issuedAt, lifetime: .seconds(300)))
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

    @Test func confirmedCommandsAskTheServiceWhoTheCallerIsNow() throws {
        // Without confirmation the token's word holds until it expires...
        #expect(try reply("probe.user", token: token(session: "ended")).isOK)
        #expect(try reply("probe.admin", token: token(roles: ["admin"])).isOK)
        // ...with it, an ended session is refused and the roles checked are the current ones.
        let ended = try reply("probe.confirmed_user", token: token(session: "ended")).error
        #expect(ended?.code == .unauthenticated)
        #expect(ended?.field == "token")
        #expect(try reply("probe.confirmed_user", token: token(roles: ["admin", "manager"])).result == ["caller": "7", "roles": ["manager"]])
        let demoted = try reply("probe.confirmed_admin", token: token(roles: ["admin"])).error
        #expect(demoted?.code == .permissionDenied, "\(String(describing: demoted))")
        #expect(try reply("probe.confirmed_admin").error?.code == .unauthenticated)
    }

    @Test func anOwnerArgumentIsRefusedForEveryCommandThatActsForACaller() throws {
        let processor = processor()
        let envelope = Envelope(command: "probe.user", args: ["owner": "bo"], token: try token())
        let error = try Reply.decode(processor.process(envelope)).error
        #expect(error?.code == .invalidArgument)
        #expect(error?.field == "args.owner")
        #expect(error?.message.hasPrefix("owner is no longer an argument: probe.user acts on the signed-in caller's own data") == true)
    }
}
