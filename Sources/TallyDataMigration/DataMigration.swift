import Foundation
import TallyAccounts
import TallyCatalog
import TallyCurrency
import TallyIdentity
import TallyNotifier
import TallyPostgres
import TallyProtocol
import TallyRoster
import TallyShopping
import TallyStorage

/// Moves a deployment's data from SQLite files to PostgreSQL (`tally migrate-data`): every
/// database of `ServiceCatalog.databases` found in the data directory, copied whole into the
/// schema of the same name.
///
/// For each database, in order:
/// 1. Its file is refused while a process has it open (stop the workers and `tally up` first:
///    a write after the copy would be left behind).
/// 2. Both sides are brought to this release's schema by opening the service's store on them,
///    so their tables are the same. The target schema must not hold tables yet: a copy never
///    merges into, or overwrites, data already on PostgreSQL.
/// 3. One read snapshot of the file is copied in one PostgreSQL transaction, table by table
///    (the rows the migrations seeded are replaced by the file's), values converted to the
///    column types PostgreSQL has (money to NUMERIC, milliseconds to TIMESTAMPTZ, 0/1 to
///    BOOLEAN); identity sequences continue after the largest id copied. Row counts are
///    compared before the commit. Event sequences, each database's epoch, stored idempotent
///    results and processed-event records are ordinary rows, so retries and catch-up carry on
///    where the SQLite deployment was: the same epoch is the same history to the notifier.
/// 4. A copy that fails drops the schema it made, so it can simply be run again.
public struct DataMigration {
    public let dataDirectory: String
    public let target: PostgresConfiguration

    /// What was copied of one database.
    public struct Copied: Sendable {
        public let database: String
        public let rows: [String: Int]
    }

    public init(dataDirectory: String, target: PostgresConfiguration) {
        self.dataDirectory = dataDirectory
        self.target = target
    }

    /// The databases that have a file in the data directory.
    public var databasesFound: [String] {
        ServiceCatalog.databases.filter {
            FileManager.default.fileExists(atPath: URL(fileURLWithPath: dataDirectory).appendingPathComponent("\($0).sqlite").path)
        }
    }

    /// Copies one database (see the type's steps).
    public func copy(_ database: String) throws -> Copied {
        guard !SQLiteEngine.isInUse(directory: dataDirectory, name: database) else {
            throw TallyError(
                .failedPrecondition,
                "\(dataDirectory)/\(database).sqlite is open in another process (a worker, the notifier, or tally up): stop them, then copy")
        }
        let source = try SQLiteEngine(directory: dataDirectory, name: database)
        try Self.openStore(database, on: source)

        var configuration = target
        configuration.schema = database
        let destination = PostgresEngine(configuration: configuration)
        let existing = try destination.read { session in
            try session.fetchValues(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = \(database)", as: String.self)
        }
        guard existing.isEmpty else {
            throw TallyError(
                .alreadyExists,
                "the schema \(database) on \(configuration.redacted) already holds tables (\(existing.sorted().prefix(5).joined(separator: ", "))): migrate-data copies only into a database without Tally's data. If it is what a failed copy left, DROP SCHEMA \(database) CASCADE and run it again")
        }
        do {
            try Self.openStore(database, on: destination)
            let rows = try source.read { from in
                try destination.write { to in try Self.copyTables(from: from, to: to) }
            }
            return Copied(database: database, rows: rows)
        } catch {
            // Leave nothing half made: the schema is this run's own (it had no tables).
            _ = try? destination.write { try $0.execute("DROP SCHEMA IF EXISTS \(raw: database) CASCADE") }
            throw error
        }
    }

    /// Opens the store of `database` on `engine`, which migrates it to this release's schema.
    static func openStore(_ database: String, on engine: any StorageEngine) throws {
        switch database {
        case "accounts": _ = try AccountStore(engine: engine)
        case "currency": _ = try CurrencyStore(engine: engine)
        case "shopping": _ = try ShoppingStore(engine: engine)
        case "roster": _ = try RosterStore(engine: engine)
        case "identity": _ = try IdentityStore(engine: engine)
        case "notifier": _ = try NotifierStore(engine: engine)
        default: throw TallyError(.invalidArgument, "unknown database '\(database)'", field: "service")
        }
    }

    /// A column of the target, as PostgreSQL describes it.
    private struct Column {
        let name: String
        let type: String
        let isIdentity: Bool
    }

    /// Rows copied per statement: under PostgreSQL's 65,535 bound values, whatever the width.
    private static let valuesPerStatement = 30_000

    private static func copyTables(from: any SQLSession, to: any SQLSession) throws -> [String: Int] {
        let tables = try to.fetchValues(
            """
            SELECT table_name FROM information_schema.tables
            WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> 'tally_migration'
            ORDER BY table_name
            """, as: String.self)
        let sourceTables = Set(try from.fetchValues(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT IN ('tally_migration', 'grdb_migrations')",
            as: String.self))
        guard sourceTables == Set(tables) else {
            throw TallyError(
                .failedPrecondition,
                "the file and the PostgreSQL schema have different tables (\(sourceTables.symmetricDifference(tables).sorted().joined(separator: ", "))); both were migrated by this release, so this is a bug: report it")
        }
        // Parents before the tables that refer to them (shopping's items to their lists), and
        // the rows the migrations seeded emptied children first.
        let ordered = try referencedFirst(tables, to)
        for table in ordered.reversed() { try to.execute("DELETE FROM \(raw: table)") }
        var counts: [String: Int] = [:]
        for table in ordered {
            let columns = try to.fetchAll(
                """
                SELECT column_name, data_type, is_identity FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name = \(table) ORDER BY ordinal_position
                """
            ).map { row in Column(name: try row["column_name"], type: try row["data_type"], isIdentity: try row["is_identity"] == "YES") }
            let names = columns.map { "\"\($0.name)\"" }.joined(separator: ", ")
            let rows = try from.fetchAll("SELECT \(raw: names) FROM \"\(raw: table)\"")
            let perStatement = max(1, valuesPerStatement / max(1, columns.count))
            for start in stride(from: 0, to: rows.count, by: perStatement) {
                let batch = try rows[start..<min(start + perStatement, rows.count)].map { row -> SQL in
                    let values = try zip(columns, row.values).map { column, value in
                        try convert(value, to: column, table: table)
                    }
                    return "(\(SQL.joined(values.map { "\($0)" }, separator: ", ")))"
                }
                try to.execute("INSERT INTO \(raw: table) (\(raw: names)) VALUES \(SQL.joined(batch, separator: ", "))")
            }
            for column in columns where column.isIdentity {
                // Identity columns go on after the largest id copied, never reusing one.
                try to.execute(
                    """
                    SELECT setval(pg_get_serial_sequence(\(table), \(column.name)), COALESCE((SELECT MAX(\(raw: column.name)) FROM \(raw: table)), 0) + 1, false)
                    """)
            }
            let copied = try to.fetchValue("SELECT COUNT(*) FROM \(raw: table)", as: Int64.self) ?? 0
            guard copied == rows.count else {
                throw StorageFailure(location: table, detail: "copied \(copied) rows of \(rows.count)")
            }
            counts[table] = rows.count
        }
        return counts
    }

    /// `tables` ordered so that every table comes after the tables its foreign keys refer to.
    private static func referencedFirst(_ tables: [String], _ session: any SQLSession) throws -> [String] {
        let references = try session.fetchAll(
            """
            SELECT child.relname AS child, parent.relname AS parent FROM pg_constraint c
            JOIN pg_class child ON child.oid = c.conrelid JOIN pg_class parent ON parent.oid = c.confrelid
            WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace
            """)
        var parents: [String: Set<String>] = [:]
        for row in references {
            let child: String = try row["child"]
            let parent: String = try row["parent"]
            if child != parent { parents[child, default: []].insert(parent) }
        }
        var ordered: [String] = []
        var placed: Set<String> = []
        while ordered.count < tables.count {
            let ready = tables.filter { !placed.contains($0) && (parents[$0] ?? []).isSubset(of: placed) }
            guard !ready.isEmpty else {
                throw StorageFailure(location: "foreign keys", detail: "the tables refer to each other in a cycle; copy is not possible in one order")
            }
            ordered += ready
            placed.formUnion(ready)
        }
        return ordered
    }

    /// A SQLite value as the PostgreSQL column's type wants it.
    private static func convert(_ value: SQLValue, to column: Column, table: String) throws -> SQLValue {
        func unreadable() -> StorageFailure {
            StorageFailure(location: "\(table).\(column.name)", detail: "a \(column.type) column holds \(value), which does not read as one")
        }
        switch (column.type, value) {
        case (_, .null): return .null
        case ("numeric", .integer(let number)): return .money(Int128(number))
        case ("numeric", .text(let text)):
            guard let number = Int128(text) else { throw unreadable() }
            return .money(number)
        case ("timestamp with time zone", .integer(let milliseconds)): return .timestamp(milliseconds)
        case ("boolean", .integer(let number)): return .bool(number != 0)
        case ("bigint", .integer), ("integer", .integer), ("smallint", .integer), ("text", .text), ("bytea", .blob): return value
        case ("bigint", .text(let text)), ("integer", .text(let text)):
            guard let number = Int64(text) else { throw unreadable() }
            return .integer(number)
        case ("text", .integer(let number)): return .text(String(number))
        case ("bytea", .text(let text)): return .blob(Data(text.utf8))
        default: throw unreadable()
        }
    }
}
