import ArgumentParser
import Foundation
import TallyCatalog
import TallyStorage
import TallyTerminal

/// `tally backup`: a consistent copy of one service's database, taken while it serves.
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy a service's database while it serves (SQLite's online backup).",
        discussion: """
            The copy is the database as it was when the backup began: every change committed before \
            then, none after, whatever the workers do meanwhile. It is a complete SQLite file; \
            `tally restore` puts it back. Databases: \(ServiceCatalog.databases.joined(separator: ", ")).
            """)

    @OptionGroup var database: DatabaseOption

    @Option(help: "The file to write; it must not exist yet.")
    var to: String

    @OptionGroup var dataDirectory: DataDirectoryOption

    func validate() throws {
        guard !FileManager.default.fileExists(atPath: to) else {
            throw ValidationError("\(to) already exists; choose a new file, so that no backup is overwritten by mistake")
        }
    }

    func run() throws {
        let service = database.service
        let path = try database.existingFile(in: dataDirectory.path)
        let engine = try SQLiteEngine(directory: dataDirectory.path, name: service)
        let progress = TerminalProgress(label: "backing up \(service)")
        try engine.backup(to: to, progress: progress.update)
        progress.finish()
        let steps = try SQLiteEngine.inspect(file: to)
        print("backed up \(path) to \(to): integrity ok, schema steps \(steps.joined(separator: ", "))")
    }
}

/// `tally restore`: puts a backup back in place of a service's database.
struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Replace a service's database with a backup made by tally backup.",
        discussion: """
            Stop the service's workers first (and tally up): restore refuses while any process has the \
            database open. The workers started afterwards serve the data as the backup has it. The \
            restored database's events begin a new epoch (history) after the backup's last event, so \
            the notifier, whose progress may be past it, catches up from there; see docs/storage.md.
            """)

    @OptionGroup var database: DatabaseOption

    @Option(help: "The backup file.")
    var from: String

    @OptionGroup var dataDirectory: DataDirectoryOption

    func validate() throws {
        guard FileManager.default.fileExists(atPath: from) else { throw ValidationError("\(from) does not exist") }
    }

    func run() throws {
        let service = database.service
        let steps = try SQLiteEngine.inspect(file: from)
        guard steps.contains(where: { $0.hasPrefix(service == "notifier" ? "notifier" : service) }) else {
            throw ValidationError("\(from) is not a \(service) database (its schema steps are \(steps.joined(separator: ", ")))")
        }
        try FileManager.default.createDirectory(atPath: dataDirectory.path, withIntermediateDirectories: true)
        let progress = TerminalProgress(label: "restoring \(service)")
        // Its sequence goes on from the backup's: numbers subscribers handled come round again, so
        // its events begin a new epoch, made before any worker can open the restored file.
        var epoch: EventEpoch?
        try SQLiteEngine.restore(directory: dataDirectory.path, name: service, from: from, progress: progress.update) { session in
            epoch = try EventEpoch.begin(in: session)
        }
        progress.finish()
        print("restored \(dataDirectory.path)/\(service).sqlite from \(from)"
            + (epoch.map { "; its events begin epoch \($0.id) after sequence \($0.beganAfter)" } ?? ""))
    }
}

/// `--service`, the SQLite database `tally backup` copies and `tally restore` replaces, declared
/// once for both.
struct DatabaseOption: ParsableArguments {
    @Option(help: "The service whose database it is: \(ServiceCatalog.databases.joined(separator: ", ")).")
    var service: String

    func validate() throws {
        // These commands copy SQLite files; a deployment on PostgreSQL has none to copy.
        if EnvironmentDefaults.databaseURL.value != nil {
            throw ValidationError(
                "TALLY_DATABASE_URL is set: the data is on PostgreSQL, where pg_dump and pg_restore (or base backups) do this; see docs/storage.md")
        }
        guard ServiceCatalog.databases.contains(service) else {
            throw ValidationError("unknown database '\(service)'; choose one of \(ServiceCatalog.databases.joined(separator: ", "))")
        }
    }

    /// The path of the database in `directory`, which must exist.
    func existingFile(in directory: String) throws -> String {
        let path = URL(fileURLWithPath: directory).appendingPathComponent("\(service).sqlite").path
        guard FileManager.default.fileExists(atPath: path) else {
            throw ValidationError("there is no \(path); is --data-dir (TALLY_DATA_DIR) the directory the workers use?")
        }
        return path
    }
}
