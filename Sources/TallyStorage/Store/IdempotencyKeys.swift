import Foundation
import TallyProtocol

/// The results of keyed changes, stored in the change's own transaction, so that a retry with the
/// same `idempotency_key` gets the first run's result back instead of running again.
///
/// Keys are unique within a scope (the command and whose data it changes). A key reused for a
/// different request is refused (`failed_precondition`) rather than answered with another
/// request's result. Keys are kept for `retention`, long enough for any client's retries.
enum IdempotencyKeys {
    static let retention: Duration = .seconds(24 * 3600)

    static let migrations = [
        Migration("idempotency-keys") { session in
            try session.create(TableSchema(
                "idempotency_key",
                columns: [
                    ColumnSchema("key", .text), ColumnSchema("scope", .text), ColumnSchema("fingerprint", .text),
                    ColumnSchema("result", .blob),
                    // Seconds since 1970, as first shipped.
                    ColumnSchema("created_at", .integer),
                ],
                primaryKey: ["scope", "key"]))
            try session.createIndex("idempotency_key_created_at", on: "idempotency_key", columns: ["created_at"])
        }
    ]

    /// The stored result of `key`, if the key was used; throws if it was used for another request.
    static func stored(_ key: String, scope: String, fingerprint: String, _ session: any SQLSession) throws -> JSONValue? {
        try result(of: session.fetchOne(lookup(key, scope: scope)), key: key, scope: scope, fingerprint: fingerprint)
    }

    /// A change's key looked up as it starts, without a wait of its own (`SQLSession.fetchAhead`):
    /// when the key was used, the change's next statement throws `Replay` with the stored result
    /// (or the error for a key used for another request), and its savepoint undoes what it did.
    static func refuseReplays(_ key: String, scope: String, fingerprint: String, _ session: any SQLSession) throws {
        try session.fetchAhead(lookup(key, scope: scope)) { rows in
            if let stored = try result(of: rows.first, key: key, scope: scope, fingerprint: fingerprint) { throw Replay(result: stored) }
        }
    }

    /// A retry of a change that committed: its stored result, thrown to end the retry's work.
    struct Replay: Error {
        let result: JSONValue
    }

    private static func lookup(_ key: String, scope: String) -> SQL {
        "SELECT fingerprint, result FROM idempotency_key WHERE scope = \(scope) AND key = \(key)"
    }

    private static func result(of row: SQLRow?, key: String, scope: String, fingerprint: String) throws -> JSONValue? {
        guard let row else { return nil }
        guard try row["fingerprint"] as String == fingerprint else {
            throw TallyError(
                .failedPrecondition,
                "idempotency_key '\(key)' was already used for a different \(scope.prefix(while: { $0 != ":" })) request; use a new key for a new request",
                field: "idempotency_key")
        }
        return try JSONReader.parse(try row["result"] as Data)
    }

    /// The statements that store `result` for `key`; with `purging`, also forget the keys past
    /// their retention. The caller runs them, with the change's other closing rows.
    static func storing(_ key: String, scope: String, fingerprint: String, result: Data, now: Int64, purging: Bool) -> [SQL] {
        let seconds = now / 1000
        let insert: SQL =
            "INSERT INTO idempotency_key (key, scope, fingerprint, result, created_at) VALUES (\(key), \(scope), \(fingerprint), \(result), \(seconds))"
        guard purging else { return [insert] }
        return [insert, "DELETE FROM idempotency_key WHERE created_at < \(seconds - retention.components.seconds)"]
    }
}
