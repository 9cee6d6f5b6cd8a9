import ArgumentParser
import TallyCatalog
import TallyStorage

/// `--database`: where stateful services keep their data when it is not SQLite files in
/// `--data-dir`. Shared by every command that opens a service's data, so a deployment on
/// PostgreSQL sets `TALLY_DATABASE_URL` once and every command follows it.
struct DatabaseOptions: ParsableArguments {
    @Option(
        help: EnvironmentDefaults.databaseURL.help("""
            A PostgreSQL database for every stateful service's data (a schema per service), instead of SQLite \
            files in --data-dir: postgres://USER@HOST:PORT/DATABASE, or ?host=/socket/dir. Query options: \
            pool_size, connect_timeout, statement_timeout, acquire_timeout, sslmode (disable, prefer, require, \
            verify-ca, verify-full; default verify-full beyond loopback), sslrootcert. Prefer PGPASSWORD to a \
            password in the URL.
            """))
    var database: String?

    @Option(
        help: EnvironmentDefaults.durability.help("""
            When a change is answered: disk (the default: once it is on the disk, so it survives a power cut or a \
            kernel crash; SQLite's log synced after each commit, PostgreSQL synchronous_commit=on) or process (once the operating \
            system or the database server has it: survives a killed worker, but a power cut may take back the last \
            second or so of answered changes; faster where syncing is slow).
            """))
    var durability: Durability = EnvironmentDefaults.durability.value

    /// The flag, else `TALLY_DATABASE_URL`; nil for SQLite.
    var url: String? { database ?? EnvironmentDefaults.databaseURL.value }

    /// These options for a child process (`tally up`'s), as the environment it reads them from.
    var environment: [String: String] {
        var environment = ["TALLY_DURABILITY": durability.rawValue]
        if let url { environment["TALLY_DATABASE_URL"] = url }
        return environment
    }

    /// The data location these options and `dataDirectory` name.
    func location(dataDirectory: String) throws -> DataLocation {
        do {
            return try DataLocation(dataDirectory: dataDirectory, databaseURL: url, durability: durability)
        } catch {
            throw ValidationError("--database (TALLY_DATABASE_URL): \(error)")
        }
    }
}

extension Durability: ExpressibleByArgument {}
