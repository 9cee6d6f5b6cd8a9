import Foundation
import TallyAuth
import TallyProtocol

/// Callers of a test stack: tokens signed with the stack's key for any user in one call, and
/// real accounts through the identity service (and its operator commands).
extension TallyStack {
    /// An access token for `username`, signed with the stack's key, as the identity service would
    /// issue it: any worker of the stack accepts it. `issuedAt` in the past makes an expired one.
    public func accessToken(
        for username: String, userID: String? = nil, roles: [String] = [], sessionID: String = "test-session",
        issuedAt: Date = Date(), lifetime: Duration = .seconds(300)
    ) throws -> String {
        let claims = AccessTokenClaims(
            subject: userID ?? username, username: username, roles: roles, sessionID: sessionID, now: issuedAt, lifetime: lifetime)
        return try AccessTokenSigner(key: signingKey).sign(claims)
    }

    /// An access token with the `service` role, as the notifier uses for `<service>.events`.
    public func serviceAccessToken() throws -> String {
        try accessToken(for: "tally-tests", roles: ["service"])
    }

    /// How long a call to identity may take: hashing a password is slow on purpose, and slower on
    /// a loaded machine.
    public static let identityTimeout: Duration = .seconds(30)

    /// A person's session through the identity service: what `identity.login` gave.
    public struct Login: Sendable {
        public let userID: String
        public let accessToken: String
        public let refreshToken: String
        public let result: JSONValue
    }

    /// Signs `username` up and logs them in through the gateway (needs an identity worker).
    public func signUpAndLogIn(_ username: String, password: String = "correct horse battery staple") async throws -> Login {
        // A key, as every client should send with a change: the gateway may then give the request
        // to another worker if its worker is taken for dead on a loaded machine.
        let signup = try await client(timeout: Self.identityTimeout).call(
            "identity.signup", ["username": .string(username), "password": .string(password)], idempotencyKey: UUID().uuidString)
        guard signup.isOK else { throw StackError.refused(command: "identity.signup", reply: "\(signup)") }
        return try await logIn(username, password: password)
    }

    /// Logs `username` in through the gateway (needs an identity worker).
    public func logIn(_ username: String, password: String = "correct horse battery staple") async throws -> Login {
        let reply = try await client(timeout: Self.identityTimeout).call(
            "identity.login", ["username": .string(username), "password": .string(password)], idempotencyKey: UUID().uuidString)
        guard let result = reply.result, let access = result["access_token"]?.stringValue,
            let refresh = result["refresh_token"]?.stringValue, let userID = result["user"]?["user_id"]?.stringValue
        else { throw StackError.refused(command: "identity.login", reply: "\(reply)") }
        return Login(userID: userID, accessToken: access, refreshToken: refresh, result: result)
    }

    /// Adds a person with roles (the first admin) as an operator does, with `tally identity add-user`.
    public func addUser(_ username: String, password: String = "correct horse battery staple", roles: [String]) async throws {
        let arguments = ["identity", "add-user", username, "--password-stdin", "--data-dir", dataDirectory] + roles.flatMap { ["--role", $0] }
        try await runToCompletion(launch("add-user", arguments, input: Data("\(password)\n".utf8)))
    }

    /// Issues a service token into `file` (mode 0600) with `tally identity service-token`.
    public func issueServiceToken(_ name: String, into file: String) async throws {
        try await runToCompletion(launch("service-token", ["identity", "service-token", name, "--out", file, "--data-dir", dataDirectory]))
    }

    /// The bound is a guard against a hang, not a measure: a one-shot command on a machine whose
    /// cores are all busy can take a minute.
    private func runToCompletion(_ process: TallyProcess) async throws {
        guard await process.waitForExit(timeout: .seconds(180)), process.exitStatus == 0 else {
            throw StackError.refused(command: process.arguments.joined(separator: " "), reply: "\(process.summary)\n\(process.log)")
        }
    }
}
