import Foundation
import Synchronization
import TallyMoney
import TallyProtocol
@testable import TallyCurrency
import TallyStorage
import TallyTesting

/// A fresh data directory in the temporary directory, removed when the test process exits (not
/// sooner: stores on it keep its files open, and the databases named by it live as long).
func temporaryDataDirectory() throws -> String {
    let path = TemporaryDirectory.untilExit(prefix: "tally-currency")
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// The currency store in `directory` (`currency.sqlite`, or the PostgreSQL database made for
/// that directory when `TALLY_TEST_DATABASE` says so), opened as a worker process opens it: two
/// stores on one directory are two connections, as two worker processes are.
func openStore(_ directory: String) throws -> CurrencyStore {
    try CurrencyStore(engine: try TestDatabases.database(for: directory).engine())
}

/// The database of each test's data directory: the tests name their database by its directory,
/// as workers do, and on PostgreSQL a directory's database is made the first time it is named.
private enum TestDatabases {
    static let byDirectory = Mutex<[String: TestDatabase]>([:])

    static func database(for directory: String) throws -> TestDatabase {
        try byDirectory.withLock { databases in
            if let database = databases[directory] { return database }
            let database = try TestDatabase(name: "currency", directory: directory)
            databases[directory] = database
            return database
        }
    }
}

/// A currency database in a temporary directory, with the embedded data loaded unless told otherwise.
///
/// The embedded set is loaded once per test process and copied (SQLite's online backup, through
/// `SQLiteEngine.backup(to:)`) into each test's database: loading it costs a good part of a CPU
/// second in a debug build, and forty tests each loading it kept both threads of a two-core
/// machine's concurrency pool busy for tens of seconds, stalling every other test of the run.
func makeStore(loading data: CurrencyData? = CurrencyData.embedded, source: CurrencySource = .embedded) throws -> CurrencyStore {
    let directory = try temporaryDataDirectory()
    guard let data else { return try openStore(directory) }
    // The template is a SQLite file; a PostgreSQL database loads the set itself.
    if source == .embedded && data == CurrencyData.embedded && TestDatabase.kind == .sqlite {
        try EmbeddedTemplate.engine.get().backup(to: directory + "/currency.sqlite")
        return try openStore(directory)
    }
    let store = try openStore(directory)
    _ = try CurrencyLoader(store: store).load(data, source: source, policy: .replace)
    return store
}

/// A database with the embedded set loaded, made once per test process.
private enum EmbeddedTemplate {
    static let engine = Result { () throws -> SQLiteEngine in
        let engine = try SQLiteEngine(directory: try temporaryDataDirectory(), name: "currency")
        _ = try CurrencyLoader(store: try CurrencyStore(engine: engine)).load(.embedded, source: .embedded, policy: .replace)
        return engine
    }
}

/// Runs a currency command as a worker would and returns the result as a client decodes it.
func run(_ store: CurrencyStore, _ command: String, _ args: JSONValue = [:], locale: String? = nil) throws -> JSONValue {
    try ServiceHarness(CurrencyService(store: store)).call(command, args, locale: locale)
}

/// The error a currency command answers with, or nil if it succeeds.
func runError(_ store: CurrencyStore, _ command: String, _ args: JSONValue = [:], locale: String? = nil) -> TallyError? {
    ServiceHarness(CurrencyService(store: store)).error(command, args, locale: locale)
}

/// The codes of a search result, in order.
func codes(_ result: JSONValue) -> [String] {
    (result["currencies"]?.arrayValue ?? []).compactMap { $0["code"]?.stringValue }
}

/// A small data set for tests that need to know every currency.
func sampleData(
    version: String = "test-1", currencies: [CurrencyData.Entry],
    territories: [String: [String: String]] = [:], regionCurrency: [String: String] = [:]
) -> CurrencyData {
    CurrencyData(
        version: version, generated: "2026-01-01", licence: "test data", currencies: currencies,
        territories: territories, regionCurrency: regionCurrency)
}

func entry(
    _ code: String, name: String, symbol: String? = nil, symbols: [String] = [], countries: [String] = [],
    names: [String: String] = [:], retired: Bool = false
) -> CurrencyData.Entry {
    CurrencyData.Entry(
        code: code, numeric: retired ? nil : "999", minorUnits: 2, isoMinorUnits: retired ? nil : 2, cldrMinorUnits: 2,
        cashRounding: nil, symbol: symbol ?? code, narrowSymbol: symbol ?? code, symbols: symbols,
        names: names.merging(["en": name]) { current, _ in current }, isoName: nil, countries: countries,
        retired: retired)
}

/// The embedded data with every English currency name suffixed: tells a reload's rows from the old ones.
func renamedEmbeddedData(version: String, suffix: String) -> CurrencyData {
    var data = CurrencyData.embedded
    data.version = version
    data.currencies = data.currencies.map { entry in
        var entry = entry
        entry.names["en"] = (entry.names["en"] ?? entry.code) + suffix
        return entry
    }
    return data
}

/// Thread-safe list for observations from other threads.
final class Observations<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [T] = []
    func append(_ item: T) { lock.withLock { storage.append(item) } }
    var items: [T] { lock.withLock { storage } }
}
