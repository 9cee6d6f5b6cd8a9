import Foundation
import TallyPostgres
import TallyStorage

/// Where a service test keeps its state: one place that says which engine the service harnesses
/// run on, so that the same unit tests run on SQLite (the default) and on PostgreSQL
/// (`TALLY_TEST_DATABASE=postgres`, a fresh database per harness on the test process's
/// `PostgresCluster`).
///
/// A harness makes one `TestDatabase` and asks it for engines: each `engine()` opens the same data
/// again, as another worker process would. Tests about SQLite itself (file locks, busy timeouts,
/// backups, a second process opening the file) use `SQLiteEngine` directly and stay on SQLite.
public final class TestDatabase: Sendable {
    public enum Kind: String, Sendable {
        case sqlite
        case postgres
    }

    /// The engine the environment asks for: `TALLY_TEST_DATABASE` is `sqlite` (or unset) or `postgres`.
    /// Anything else stops the tests rather than quietly running them on SQLite.
    public static let kind: Kind = {
        let value = ProcessInfo.processInfo.environment["TALLY_TEST_DATABASE"] ?? ""
        if value.isEmpty { return .sqlite }
        guard let kind = Kind(rawValue: value.lowercased()) else {
            fatalError("TALLY_TEST_DATABASE=\(value): expected 'sqlite' or 'postgres'")
        }
        return kind
    }()

    public let kind: Kind
    /// The SQLite file's name (without `.sqlite`), in `directory`.
    public let name: String
    public let directory: String
    /// The PostgreSQL database's URL, made for this harness; nil on SQLite.
    public let url: String?

    /// A new, empty database for one harness: a SQLite file `name` in `directory`, or a fresh
    /// PostgreSQL database. Asking for PostgreSQL where it is not installed is an error, not a
    /// silent fallback: a run that says it covers PostgreSQL must.
    public init(kind: Kind = TestDatabase.kind, name: String, directory: String) throws {
        self.kind = kind
        self.name = name
        self.directory = directory
        switch kind {
        case .sqlite: url = nil
        case .postgres: url = try PostgresCluster.shared().makeDatabase()
        }
    }

    /// An engine on this database.
    public func engine() throws -> any StorageEngine {
        switch kind {
        case .sqlite: try SQLiteEngine(directory: directory, name: name)
        case .postgres: try PostgresEngine(url: url!)
        }
    }

    /// A fresh database and an engine on it, for a harness that opens it only once.
    public static func engine(name: String, directory: String) throws -> any StorageEngine {
        try TestDatabase(name: name, directory: directory).engine()
    }
}
