import Foundation
import TallyAuth
import TallyClient
import TallyProtocol

/// The logins `tally login` keeps for `tally call`, one per gateway endpoint, in
/// `$XDG_CONFIG_HOME/tally/logins.json` (or `~/.config/tally/logins.json`), mode 0600.
struct LoginStore {
    /// One login: the tokens identity.login (or the last identity.refresh) gave.
    struct Login: Codable {
        var username: String
        var accessToken: String
        var expiresAt: String
        var refreshToken: String
        var refreshExpiresAt: String

        /// From the result of identity.login or identity.refresh.
        init?(username: String, result: JSONValue) {
            guard let access = result["access_token"]?.stringValue, let expires = result["expires_at"]?.stringValue,
                let refresh = result["refresh_token"]?.stringValue, let refreshExpires = result["refresh_expires_at"]?.stringValue
            else { return nil }
            self.username = username
            accessToken = access
            expiresAt = expires
            refreshToken = refresh
            refreshExpiresAt = refreshExpires
        }

        /// Whether the access token is still good for a while (a call's worth of time).
        var isFresh: Bool {
            guard let expiry = try? Date(expiresAt, strategy: .iso8601WithFractionalSeconds) else { return false }
            return expiry.timeIntervalSinceNow > 30
        }
    }

    let path: String

    /// The store of the user running `tally`.
    static var standard: LoginStore {
        let environment = ProcessInfo.processInfo.environment
        let configuration =
            environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? "\(environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path)/.config"
        return LoginStore(path: "\(configuration)/tally/logins.json")
    }

    func login(for endpoint: String) throws -> Login? {
        try load()[endpoint]
    }

    /// Stores `login` for `endpoint` (nil forgets it).
    func save(_ login: Login?, for endpoint: String) throws {
        var logins = try load()
        logins[endpoint] = login
        try SecretFile.write(try TallyJSON.encode(logins), to: path, replacing: true)
    }

    private func load() throws -> [String: Login] {
        guard FileManager.default.fileExists(atPath: path) else { return [:] }
        let data = try SecretFile.read(path, what: "the stored logins")
        do {
            return try TallyJSON.decode([String: Login].self, from: data)
        } catch {
            throw KeyFileError("\(path) is not a file of stored logins; remove it and log in again")
        }
    }

    /// An access token for `endpoint`: the stored one while it is fresh, else a refreshed one
    /// (stored in its place). Nil when there is no login, or it cannot be refreshed now; a login
    /// the identity service refuses to refresh is forgotten, and standard error says to log in again.
    func accessToken(for endpoint: String, client: TallyClient) async throws -> String? {
        guard let login = try login(for: endpoint) else { return nil }
        if login.isFresh { return login.accessToken }
        return try refreshed(login, by: try await client.call("identity.refresh", Self.refreshArgs(login)), for: endpoint)
    }

    /// The same, blocking: for a loop on a thread of its own (`tally watch`'s), which asks again
    /// before each call it makes.
    func accessToken(for endpoint: String, requester: LazyPirateRequester) throws -> String? {
        guard let login = try login(for: endpoint) else { return nil }
        if login.isFresh { return login.accessToken }
        let envelope = Envelope(
            command: "identity.refresh", args: Self.refreshArgs(login),
            deadlineMs: TallyClient.deadline(forTimeout: requester.timeout).roundedUpMilliseconds)
        let frames = try requester.request(envelope.encoded())
        guard let reply = frames.count == 1 ? try? Reply.decode(frames[0]) : nil else {
            throw ClientError.malformedReply("\(frames.count) frames, or not a reply")
        }
        return try refreshed(login, by: reply, for: endpoint)
    }

    /// The args of `login`'s refresh. Sent once, never retried: a second use of a refresh token
    /// ends the session.
    private static func refreshArgs(_ login: Login) -> JSONValue {
        ["refresh_token": .string(login.refreshToken)]
    }

    /// Stores and returns the access token of a refresh's `reply`; forgets the login if identity refused it.
    private func refreshed(_ login: Login, by reply: Reply, for endpoint: String) throws -> String? {
        if let result = reply.result, let refreshed = Login(username: login.username, result: result) {
            try save(refreshed, for: endpoint)
            return refreshed.accessToken
        }
        let why = reply.error?.message ?? "no tokens in the reply"
        if reply.error?.code == .unauthenticated {
            try save(nil, for: endpoint)
            FileHandle.standardError.write(Data("tally: the login of \(login.username) has ended (\(why)); run tally login \(login.username)\n".utf8))
        } else {
            FileHandle.standardError.write(Data("tally: could not refresh the login of \(login.username) (\(why)); sending no token\n".utf8))
        }
        return nil
    }
}

extension ParseStrategy where Self == Date.ISO8601FormatStyle {
    /// RFC 3339 with milliseconds, as Tally writes times: `2026-11-21T10:05:00.000Z`.
    static var iso8601WithFractionalSeconds: Date.ISO8601FormatStyle {
        Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    }
}
