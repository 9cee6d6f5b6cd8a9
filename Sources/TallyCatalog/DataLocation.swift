import TallyPostgres
import TallyProtocol
import TallyStorage

/// Where a deployment keeps its services' data: the one choice between the two storage engines.
///
/// - `directory`: SQLite, a file per service (`<directory>/accounts.sqlite`, ...). The default:
///   `tally up` needs no server.
/// - `postgres`: one PostgreSQL database, a schema per service (`accounts`, `shopping`, ...), so
///   the services' tables never collide and each still migrates on its own. Every worker of a
///   service, on any host, given the same URL shares the same data.
public enum DataLocation: Sendable {
    case directory(String, Durability)
    case postgres(PostgresConfiguration)

    /// `--database` (or `TALLY_DATABASE_URL`) when given, else SQLite files in `dataDirectory`;
    /// either with `durability` (`--durability`). The URL is checked here, so a worker with a bad
    /// one stops at start with a clear message (never echoing the URL, which may hold a password).
    public init(dataDirectory: String, databaseURL: String?, durability: Durability = .disk) throws {
        if let databaseURL, !databaseURL.isEmpty {
            var configuration = try PostgresConfiguration(url: databaseURL)
            configuration.durability = durability
            guard configuration.schema == nil else {
                throw TallyError(
                    .invalidArgument, "the database URL must not name a schema: each service keeps its tables in a schema named after it",
                    field: "database")
            }
            self = .postgres(configuration)
        } else {
            self = .directory(dataDirectory, durability)
        }
    }

    /// An engine on the data called `name` (a service's, or `notifier`): the file
    /// `<directory>/<name>.sqlite`, or the schema `name` of the PostgreSQL database.
    public func engine(for name: String) throws -> any StorageEngine {
        switch self {
        case .directory(let directory, let durability):
            return try SQLiteEngine(directory: directory, name: name, durability: durability)
        case .postgres(var configuration):
            configuration.schema = name
            return PostgresEngine(configuration: configuration)
        }
    }

    /// What logs and messages show: the directory, or the URL without its password.
    public var description: String {
        switch self {
        case .directory(let directory, _): directory
        case .postgres(let configuration): configuration.redacted
        }
    }
}
