import ArgumentParser
import Foundation
import TallyCatalog
import TallyDataMigration

/// `tally migrate-data`: moves a deployment from SQLite files to PostgreSQL.
struct MigrateDataCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate-data",
        abstract: "Copy a deployment's SQLite files into PostgreSQL (--database), a schema per service.",
        discussion: """
            Stop every Tally process that uses the data directory first (workers, the notifier, tally up): \
            a file still open is refused. Each database (\(ServiceCatalog.databases.joined(separator: ", "))) \
            found in --data-dir is copied whole, from one snapshot, in one transaction, into the schema of \
            its name, which must not hold tables yet; a copy that fails leaves nothing behind. Then start the \
            processes with TALLY_DATABASE_URL set. The files are left as they were.
            """)

    @OptionGroup var dataDirectory: DataDirectoryOption

    @OptionGroup var database: DatabaseOptions

    @Option(help: "Copy only this database (repeatable); default: every one found.")
    var service: [String] = []

    func validate() throws {
        guard database.url != nil else { throw ValidationError("--database (or TALLY_DATABASE_URL) must name the PostgreSQL database to copy into") }
        for name in service where !ServiceCatalog.databases.contains(name) {
            throw ValidationError("unknown database '\(name)'; choose from \(ServiceCatalog.databases.joined(separator: ", "))")
        }
    }

    func run() throws {
        guard case .postgres(let target) = try database.location(dataDirectory: dataDirectory.path) else { return }
        let migration = DataMigration(dataDirectory: dataDirectory.path, target: target)
        let found = migration.databasesFound
        let chosen = service.isEmpty ? found : service
        guard !chosen.isEmpty else {
            throw commandFailure("migrate-data", "there is no Tally database in \(dataDirectory.path); is --data-dir (TALLY_DATA_DIR) the directory the workers used?")
        }
        for name in chosen {
            guard found.contains(name) else { throw commandFailure("migrate-data", "there is no \(dataDirectory.path)/\(name).sqlite") }
            do {
                let copied = try migration.copy(name)
                let rows = copied.rows.values.reduce(0, +)
                print("copied \(name): \(rows) rows in \(copied.rows.count) tables into \(target.redacted) (schema \(name))")
            } catch {
                throw commandFailure("migrate-data", "\(name) was not copied: \(error)")
            }
        }
    }
}
