import TallyProtocol
import TallyStorage

/// Whether an account is a person's (signs in with a password) or a program's (signs in with a
/// service token).
enum UserKind: String, Encodable, Sendable {
    case person
    case service
}

/// One row of `app_user`, with its roles.
struct UserRecord: Sendable {
    let id: Int64
    let username: String
    let kind: UserKind
    let passwordHash: String?
    let roles: [String]
    let createdAt: Int64

    /// The id callers know the user by: the row id, as a string.
    var userID: String { String(id) }

    static let columns: SQL = "id, username, kind, password_hash, created_at_ms"

    private init(row: SQLRow, roles: [String]) throws {
        id = try row["id"]
        username = try row["username"]
        let kind: String = try row["kind"]
        guard let known = UserKind(rawValue: kind) else {
            throw StorageFailure(location: "identity", detail: "app_user \(id) has the unknown kind '\(kind)'")
        }
        self.kind = known
        passwordHash = try row["password_hash"]
        createdAt = try row["created_at_ms"]
        self.roles = roles
    }

    static func find(_ session: any SQLSession, username: String) throws -> UserRecord? {
        try session.fetchOne("SELECT \(columns) FROM app_user WHERE username = \(username)").map { try withRoles($0, session) }
    }

    /// The user a token names (`sub`), if it still exists.
    static func find(_ session: any SQLSession, userID: String) throws -> UserRecord? {
        guard let id = Int64(userID) else { return nil }
        return try session.fetchOne("SELECT \(columns) FROM app_user WHERE id = \(id)").map { try withRoles($0, session) }
    }

    /// Users after `id`, in id order, at most `limit`.
    static func page(_ session: any SQLSession, after id: Int64, limit: Int) throws -> [UserRecord] {
        try session.fetchAll("SELECT \(columns) FROM app_user WHERE id > \(id) ORDER BY id LIMIT \(limit)").map { try withRoles($0, session) }
    }

    private static func withRoles(_ row: SQLRow, _ session: any SQLSession) throws -> UserRecord {
        let id: Int64 = try row["id"]
        let roles = try session.fetchValues("SELECT role FROM user_role WHERE user_id = \(id) ORDER BY role", as: String.self)
        return try UserRecord(row: row, roles: roles)
    }

    /// Adds a user; `already_exists` when the username is taken.
    static func insert(
        _ session: any SQLSession, username: String, kind: UserKind, passwordHash: String?, roles: [String], at now: Int64
    ) throws -> UserRecord {
        guard try find(session, username: username) == nil else {
            throw UsernameTaken(username).error
        }
        guard let row = try session.fetchOne("""
            INSERT INTO app_user (username, kind, password_hash, created_at_ms, updated_at_ms)
            VALUES (\(username), \(kind.rawValue), \(passwordHash.sqlValue), \(timestamp: now), \(timestamp: now))
            RETURNING \(columns)
            """)
        else { throw StorageFailure(location: "identity", detail: "INSERT ... RETURNING gave no row") }
        let id: Int64 = try row["id"]
        for role in Set(roles) {
            try session.execute("INSERT INTO user_role (user_id, role, granted_at_ms) VALUES (\(id), \(role), \(timestamp: now))")
        }
        return try UserRecord(row: row, roles: Set(roles).sorted())
    }

    /// Adds `role`; returns whether the user did not have it yet.
    func grant(_ role: String, _ session: any SQLSession, at now: Int64) throws -> Bool {
        try session.execute("""
            INSERT INTO user_role (user_id, role, granted_at_ms) VALUES (\(id), \(role), \(timestamp: now))
            ON CONFLICT (user_id, role) DO NOTHING
            """) > 0
    }

    /// Removes `role`; returns whether the user had it.
    func revoke(_ role: String, _ session: any SQLSession) throws -> Bool {
        try session.execute("DELETE FROM user_role WHERE user_id = \(id) AND role = \(role)") > 0
    }

    func setPasswordHash(_ hash: String, _ session: any SQLSession, at now: Int64) throws {
        try session.execute("UPDATE app_user SET password_hash = \(hash), updated_at_ms = \(timestamp: now) WHERE id = \(id)")
    }

    /// How many users hold `role`.
    static func count(holding role: String, _ session: any SQLSession) throws -> Int {
        try session.fetchValue("SELECT COUNT(*) FROM user_role WHERE role = \(role)", as: Int.self) ?? 0
    }

    /// The user as results show them.
    var result: UserResult {
        UserResult(userID: userID, username: username, kind: kind, roles: roles, createdAt: Timestamp.rfc3339(createdAt))
    }

    /// The user as the claims of a token, and the results that carry one, name them.
    var summary: UserSummary { UserSummary(userID: userID, username: username, roles: roles) }
}
