import TallyStorage

/// One row of `user_session`: a login, or a service token; what an access token's `sid` names.
struct SessionRecord: Sendable {
    enum Kind: String {
        case login
        case service
    }

    /// Why a session ended, as events and messages say it.
    enum EndReason: String {
        case logout
        case passwordChanged = "password_changed"
        case refreshTokenReused = "refresh_token_reused"
        case revoked

        /// The end of "this session has ended: ..." in a refusal.
        var explanation: String {
            switch self {
            case .logout: "it was logged out"
            case .passwordChanged: "the password was changed since"
            case .refreshTokenReused: "a refresh token of it was used twice, so it may have been stolen"
            case .revoked: "it was revoked"
            }
        }
    }

    let id: String
    let userID: Int64
    let kind: Kind
    let startedAt: Int64
    let endedAt: Int64?
    let endReason: String?

    private init(row: SQLRow) throws {
        id = try row["id"]
        userID = try row["user_id"]
        kind = Kind(rawValue: try row["kind"]) ?? .login
        startedAt = try row["started_at_ms"]
        endedAt = try row["ended_at_ms"]
        endReason = try row["end_reason"]
    }

    static let columns: SQL = "id, user_id, kind, started_at_ms, ended_at_ms, end_reason"

    static func find(_ session: any SQLSession, id: String) throws -> SessionRecord? {
        try session.fetchOne("SELECT \(columns) FROM user_session WHERE id = \(id)").map(SessionRecord.init)
    }

    /// A new session of `user`, with a random id.
    static func start(_ session: any SQLSession, user: UserRecord, kind: Kind, at now: Int64) throws -> String {
        let id = OpaqueToken.randomText(bytes: 16)
        try session.execute("""
            INSERT INTO user_session (id, user_id, kind, started_at_ms) VALUES (\(id), \(user.id), \(kind.rawValue), \(timestamp: now))
            """)
        return id
    }

    /// Ends the sessions of `user` still open (of `kind`, or only the session `id`); returns their ids.
    static func end(
        _ session: any SQLSession, user: Int64, only id: String? = nil, kind: Kind? = nil, reason: EndReason, at now: Int64
    ) throws -> [String] {
        var condition: SQL = "user_id = \(user) AND ended_at_ms IS NULL"
        if let id { condition = condition + " AND id = \(id)" }
        if let kind { condition = condition + " AND kind = \(kind.rawValue)" }
        return try session.fetchValues(
            "UPDATE user_session SET ended_at_ms = \(timestamp: now), end_reason = \(reason.rawValue) WHERE \(condition) RETURNING id",
            as: String.self
        ).sorted()
    }

    var isOpen: Bool { endedAt == nil }

    /// Why the session ended, for "this session has ended: ...".
    var endExplanation: String {
        endReason.flatMap(EndReason.init(rawValue:))?.explanation ?? "it was ended"
    }
}
