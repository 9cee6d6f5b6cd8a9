import Foundation

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
}
