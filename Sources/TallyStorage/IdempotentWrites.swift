import Foundation
import GRDB
import TallyProtocol

/// Makes a retried change apply once: the first successful run of a request with an
/// `idempotency_key` stores its result in the same transaction as the change; a retry with the
/// same key gets that stored result back without running again.
///
/// Keys are scoped per command and owner. A key reused for a different request is refused
/// (`failed_precondition`) rather than silently answered with another request's result. Keys are
/// kept for `retention` (24 hours), long enough for any client's retries.
public struct IdempotentWrites: Sendable {
    public let database: ServiceDatabase
    public let retention: Duration

    public init(database: ServiceDatabase, retention: Duration = .seconds(24 * 3600)) {
        self.database = database
        self.retention = retention
    }

    /// The migration creating the key table; register it in the service's migrator.
    public static func registerMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("idempotency-keys") { db in
            try db.create(table: "idempotency_key") { table in
                table.column("key", .text).notNull()
                table.column("scope", .text).notNull()
                table.column("fingerprint", .text).notNull()
                table.column("result", .blob).notNull()
                table.column("created_at", .integer).notNull()
                table.primaryKey(["scope", "key"])
            }
            try db.create(index: "idempotency_key_created_at", on: "idempotency_key", columns: ["created_at"])
        }
    }

    /// Runs `change` in one write transaction, or returns the result stored for `key`.
    /// - Parameters:
    ///   - key: the request's `idempotency_key`; without one the change simply runs.
    ///   - scope: what the key is unique within, such as `accounts.create:alice`.
    ///   - request: the request's args, to tell a true retry from a reused key.
    public func perform<Result: Encodable & Sendable>(
        key: String?, scope: String, request: JSONValue, _ change: (Database) throws -> Result
    ) throws -> any Encodable & Sendable {
        guard let key else { return try database.write(change) }
        let fingerprint = Self.fingerprint(request)
        return try database.write { db -> any Encodable & Sendable in
            if let stored = try Row.fetchOne(
                db, sql: "SELECT fingerprint, result FROM idempotency_key WHERE scope = ? AND key = ?", arguments: [scope, key])
            {
                guard stored["fingerprint"] as String == fingerprint else {
                    throw TallyError(
                        .failedPrecondition,
                        "idempotency_key '\(key)' was already used for a different \(scope.prefix(while: { $0 != ":" })) request; use a new key for a new request",
                        field: "idempotency_key")
                }
                return try JSONDecoder().decode(JSONValue.self, from: stored["result"] as Data)
            }
            let result = try change(db)
            let now = Int64(Date().timeIntervalSince1970)
            try db.execute(
                sql: "INSERT INTO idempotency_key (key, scope, fingerprint, result, created_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [key, scope, fingerprint, try JSONEncoder.tally.encode(result), now])
            try db.execute(
                sql: "DELETE FROM idempotency_key WHERE created_at < ?", arguments: [now - Int64(retention.components.seconds)])
            return result
        }
    }

    /// The request in canonical form (sorted keys), so the same args always compare equal.
    static func fingerprint(_ request: JSONValue) -> String {
        String(decoding: (try? JSONEncoder.tally.encode(request)) ?? Data(), as: UTF8.self)
    }
}
