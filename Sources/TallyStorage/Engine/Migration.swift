import Foundation
import TallyProtocol

/// One step of a service's schema, applied once, in order, in its own transaction. Steps are
/// append-only: a step that has shipped never changes; a later change is a new step.
public struct Migration: Sendable {
    /// Unique within the database, such as `accounts-v1`.
    public let id: String
    public let apply: @Sendable (any SQLSession) throws -> Void

    public init(_ id: String, _ apply: @escaping @Sendable (any SQLSession) throws -> Void) {
        self.id = id
        self.apply = apply
    }
}

/// Applies migrations and records them in `tally_migration`, shared by every engine (each calls
/// it under its own cross-process lock).
///
/// A database that records a step this binary does not know was written by a newer release:
/// it is refused with a message saying so, rather than run by code that does not understand it.
public enum Migrator {
    static let table = TableSchema(
        "tally_migration",
        columns: [ColumnSchema("id", .text), ColumnSchema("applied_at_ms", .timestamp)],
        primaryKey: ["id"])

    /// Runs the steps of `migrations` not yet applied. `transaction` runs its body in one write
    /// transaction of the engine.
    public static func run(
        _ migrations: [Migration], location: String,
        transaction: ((any SQLSession) throws -> Void) throws -> Void
    ) throws {
        var applied: Set<String> = []
        try transaction { session in
            if try !tableExists(table.name, session) {
                try session.create(table)
                // Databases made before this table existed were migrated by GRDB's DatabaseMigrator,
                // under the same step names.
                if session.dialect == .sqlite, try tableExists("grdb_migrations", session) {
                    try session.execute("INSERT INTO tally_migration (id, applied_at_ms) SELECT identifier, \(timestamp: Timestamp.now()) FROM grdb_migrations")
                }
            }
            applied = Set(try session.fetchValues("SELECT id FROM tally_migration", as: String.self))
        }
        let known = Set(migrations.map(\.id))
        let unknown = applied.subtracting(known).sorted()
        guard unknown.isEmpty else {
            throw TallyError(
                .failedPrecondition,
                "\(location) has schema steps this tally does not know (\(unknown.joined(separator: ", "))): it was written by a newer release. Run that release (or newer), or restore a backup taken before the upgrade")
        }
        for migration in migrations where !applied.contains(migration.id) {
            try transaction { session in
                // Another process may have applied it while we waited for the lock.
                if try session.exists("SELECT 1 FROM tally_migration WHERE id = \(migration.id)") { return }
                try migration.apply(session)
                try session.execute("INSERT INTO tally_migration (id, applied_at_ms) VALUES (\(migration.id), \(timestamp: Timestamp.now()))")
            }
        }
    }

    /// The ids of the steps applied to a database, in no particular order.
    public static func applied(_ session: any SQLSession) throws -> [String] {
        try tableExists(table.name, session) ? try session.fetchValues("SELECT id FROM tally_migration ORDER BY id", as: String.self) : []
    }

    static func tableExists(_ name: String, _ session: any SQLSession) throws -> Bool {
        switch session.dialect {
        case .sqlite: try session.exists("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = \(name)")
        case .postgres: try session.exists("SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = \(name)")
        }
    }
}
