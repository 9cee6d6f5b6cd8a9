import TallyPostgres
import TallyStorage
import TallyTesting
import Testing

/// The engines a store test runs on: SQLite always, PostgreSQL where it is installed (CI
/// installs it: `ops/install-deps.sh`), each test on a database of its own.
enum TestEngine: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    /// Every engine that can run here. Without PostgreSQL the PostgreSQL cases are not listed,
    /// and `PostgresEngineTests` (which is skipped then) says why.
    static let available: [TestEngine] = PostgresCluster.isInstalled ? allCases : [.sqlite]

    var testDescription: String { rawValue }

    /// One test's database: `engine()` opens it again each time (as another worker process
    /// would), always the same data.
    final class Database: Sendable {
        let kind: TestEngine
        let directory = TemporaryDirectory(prefix: "tally-store")
        /// The PostgreSQL database's URL, made for this test.
        let url: String?

        init(_ kind: TestEngine) throws {
            self.kind = kind
            url = kind == .postgres ? try PostgresCluster.shared().makeDatabase() : nil
        }

        func engine() throws -> any StorageEngine {
            switch kind {
            case .sqlite: try SQLiteEngine(directory: directory.path, name: "ledger")
            case .postgres: try PostgresEngine(url: url!)
            }
        }
    }
}
