import ArgumentParser
import TallyCatalog

/// `--database`: where stateful services keep their data when it is not SQLite files in
/// `--data-dir`. Shared by every command that opens a service's data, so a deployment on
/// PostgreSQL sets `TALLY_DATABASE_URL` once and every command follows it.
struct DatabaseOptions: ParsableArguments {
    @Option(
        help: """
            A PostgreSQL database for every stateful service's data (a schema per service), instead of SQLite \
            files in --data-dir: postgres://USER@HOST:PORT/DATABASE, or ?host=/socket/dir. Query options: \
            pool_size, connect_timeout, statement_timeout, acquire_timeout, sslmode (disable, prefer, require, \
            verify-ca, verify-full; default verify-full beyond loopback), sslrootcert. Prefer PGPASSWORD to a \
            password in the URL. Env: TALLY_DATABASE_URL.
            """)
    var database: String?

    /// The flag, else `TALLY_DATABASE_URL`; nil for SQLite.
    var url: String? { database ?? EnvironmentDefaults.databaseURL }

    /// The data location these options and `dataDirectory` name.
    func location(dataDirectory: String) throws -> DataLocation {
        do {
            return try DataLocation(dataDirectory: dataDirectory, databaseURL: url)
        } catch {
            throw ValidationError("--database (TALLY_DATABASE_URL): \(error)")
        }
    }
}
