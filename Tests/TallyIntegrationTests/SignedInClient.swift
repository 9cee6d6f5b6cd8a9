import Foundation
import TallyClient
import TallyProtocol
import TallyTesting
import Testing

/// A client of a test stack that sends one person's access token with every request, as an app
/// someone signed in to does: accounts, shopping, alerts and roster answer with that person's data.
struct SignedInClient: Sendable {
    let client: TallyClient
    let username: String
    let userID: String
    let token: String

    func call(
        _ command: String, _ args: JSONValue = [:], id: String? = nil, locale: String? = nil, idempotencyKey: String? = nil
    ) async throws -> Reply {
        try await client.call(command, args, id: id, locale: locale, idempotencyKey: idempotencyKey, token: token)
    }

    /// The result of a call that must succeed.
    @discardableResult
    func result(
        _ command: String, _ args: JSONValue = [:], idempotencyKey: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> JSONValue {
        let reply = try await call(command, args, idempotencyKey: idempotencyKey)
        return try #require(reply.result, "\(username): \(command) \(args): \(reply)", sourceLocation: sourceLocation)
    }

    /// Every account of this person, following `next_cursor`.
    func allAccounts() async throws -> [JSONValue] {
        var accounts: [JSONValue] = []
        var cursor: JSONValue = .null
        repeat {
            let page = try await call("accounts.list", ["limit": 100, "cursor": cursor])
            let result = try #require(page.result, "\(page)")
            accounts += result["accounts"]?.arrayValue ?? []
            cursor = result["next_cursor"] ?? .null
        } while cursor != .null
        return accounts
    }
}

extension TallyStack {
    /// `username` (user id `userID`, by default the username), signed in with a token signed by
    /// the stack's key: for tests whose story is not about signing up. The token lasts an hour,
    /// longer than any test, however loaded the machine.
    func signedIn(_ username: String, userID: String? = nil, roles: [String] = [], timeout: Duration = .seconds(10)) throws -> SignedInClient {
        SignedInClient(
            client: try client(timeout: timeout), username: username, userID: userID ?? username,
            token: try accessToken(for: username, userID: userID, roles: roles, lifetime: .seconds(3600)))
    }

    /// `username` signed up and logged in through the stack's identity worker, with the access
    /// token identity gave.
    func signedUp(_ username: String, timeout: Duration = .seconds(20)) async throws -> SignedInClient {
        let login = try await signUpAndLogIn(username)
        return SignedInClient(client: try client(timeout: timeout), username: username, userID: login.userID, token: login.accessToken)
    }
}
