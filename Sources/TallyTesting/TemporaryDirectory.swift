import Foundation
import Synchronization

/// A fresh directory under the system's temporary directory, removed when the value goes away:
/// where a test keeps its real SQLite files.
public final class TemporaryDirectory: Sendable {
    public let path: String

    public init(prefix: String = "tally") {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString.prefix(8))").path
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// The path of a fresh directory that is removed when the test process exits: for data a
    /// harness keeps for the whole run (a template database, stores named by their directory),
    /// which no one value outlives.
    public static func untilExit(prefix: String) -> String {
        let directory = TemporaryDirectory(prefix: prefix)
        UntilExit.directories.withLock { $0.append(directory) }
        return directory.path
    }
}

/// The directories made by `TemporaryDirectory.untilExit(prefix:)`, released (and so removed) at exit.
private enum UntilExit {
    static let directories: Mutex<[TemporaryDirectory]> = {
        atexit { UntilExit.directories.withLock { $0.removeAll() } }
        return Mutex([])
    }()
}
