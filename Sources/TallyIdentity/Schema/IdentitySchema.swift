import TallyStorage

/// The tables of the identity service. Steps are append-only: a shipped step never changes.
enum IdentitySchema {
    static let migrations: [Migration] = [
        Migration("identity-v1") { session in
            // People and service accounts. `app_user`, since `user` is reserved in PostgreSQL. The
            // id is never reused, so a token of a deleted user can never name someone else.
            try session.create(TableSchema(
                "app_user",
                columns: [
                    ColumnSchema("id", .identity),
                    // Lower case; what people sign in with.
                    ColumnSchema("username", .text, check: "length(username) >= 1 AND length(username) <= 64"),
                    ColumnSchema("kind", .text, check: "kind IN ('person', 'service')"),
                    // PHC string `$scrypt$ln=17,r=8,p=1$salt$hash`; NULL for service accounts,
                    // which sign in with service tokens.
                    ColumnSchema("password_hash", .text, notNull: false),
                    ColumnSchema("created_at_ms", .timestamp),
                    ColumnSchema("updated_at_ms", .timestamp),
                ],
                unique: [["username"]]))
            try session.create(TableSchema(
                "user_role",
                columns: [
                    ColumnSchema("user_id", .integer, references: ("app_user", true)),
                    ColumnSchema("role", .text),
                    ColumnSchema("granted_at_ms", .timestamp),
                ],
                primaryKey: ["user_id", "role"]))
            // A login (with refresh tokens) or a service token: what access tokens name as `sid`,
            // and what logging out, a password change or revoking a service token ends.
            try session.create(TableSchema(
                "user_session",
                columns: [
                    ColumnSchema("id", .text),
                    ColumnSchema("user_id", .integer, references: ("app_user", true)),
                    ColumnSchema("kind", .text, check: "kind IN ('login', 'service')"),
                    ColumnSchema("started_at_ms", .timestamp),
                    ColumnSchema("ended_at_ms", .timestamp, notNull: false),
                    ColumnSchema("end_reason", .text, notNull: false),
                ],
                primaryKey: ["id"]))
            try session.createIndex("user_session_user", on: "user_session", columns: ["user_id"])
            // Refresh tokens by their SHA-256; each is used once and replaced by the next.
            try session.create(TableSchema(
                "refresh_token",
                columns: [
                    ColumnSchema("token_hash", .text),
                    ColumnSchema("session_id", .text),
                    ColumnSchema("issued_at_ms", .timestamp),
                    ColumnSchema("expires_at_ms", .timestamp),
                    ColumnSchema("used_at_ms", .timestamp, notNull: false),
                ],
                primaryKey: ["token_hash"]))
            try session.createIndex("refresh_token_session", on: "refresh_token", columns: ["session_id"])
            // Service tokens by their SHA-256; each belongs to a session of kind 'service'.
            try session.create(TableSchema(
                "service_token",
                columns: [ColumnSchema("token_hash", .text), ColumnSchema("session_id", .text)],
                primaryKey: ["token_hash"], unique: [["session_id"]]))
            // Failed logins per username, whether or not the user exists (so the throttle says
            // nothing about who does).
            try session.create(TableSchema(
                "login_throttle",
                columns: [
                    ColumnSchema("username", .text),
                    ColumnSchema("failures", .integer),
                    ColumnSchema("last_failure_at_ms", .timestamp),
                ],
                primaryKey: ["username"]))
        },
        // Expired throttle rows are found by the time of their last failure (`LoginThrottle.expire`).
        Migration("identity-v2-throttle-expiry") { session in
            try session.createIndex("login_throttle_last_failure", on: "login_throttle", columns: ["last_failure_at_ms"])
        },
    ]
}