import Foundation
import Logging
import ServiceLifecycle
import TallyMoney
import TallyProtocol
import TallyStorage
import TallyWorker

/// The currency service: ISO 4217 currencies with CLDR's names and symbols, for a currency picker
/// (search, look up, the default for a locale). Its data lives in a `CurrencyStore`
/// (`<data-dir>/currency.sqlite`), shared by every worker process on the host.
///
/// A worker starts answering at once: while the data is loading, `currency.status` reports the
/// progress and the other commands answer `unavailable`. Loading is a service of the worker
/// process's group (`CurrencyLoadService`, in `backgroundServices`); of several workers starting
/// together one loads and the others wait for it (`CurrencyLoader`).
public struct CurrencyService: ServiceHandler {
    public static let table = CommandTable<CurrencyStore>("currency") { table in
        table.query("currency.search", "Find currencies by country, name, code or symbol, ranked and paged.") { try SearchCommand.run($2, $0, $1) }
        table.query("currency.get", "One currency by its ISO 4217 code, retired ones included.") { try GetCommand.run($2, $0, $1) }
        table.query("currency.default_for_locale", "The currency of a locale's region.") { try DefaultForLocaleCommand.run($2, $0, $1) }
        table.query("currency.status", "Whether the currency data is loaded, or how far loading has got.") { try StatusCommand.run($2, $0, $1) }
    }

    public let resources: CurrencyStore
    public var store: CurrencyStore { resources }
    /// Makes the data active once the process runs it (`backgroundServices`); nil for a service
    /// over a store loaded by hand.
    private let loading: CurrencyLoadService?

    /// The service over an opened store, loading nothing: for tests that load by hand.
    public init(store: CurrencyStore) {
        resources = store
        loading = nil
    }

    /// Opens the currency data on `engine`, ready to make `data` (the embedded set, unless a test
    /// says otherwise) the active set once the process runs `backgroundServices`, unless it
    /// already is or an operator has loaded a file.
    /// - Parameter beforeChunk: called before each chunk of the load (see `CurrencyLoader.beforeChunk`).
    public init(
        engine: any StorageEngine, data: @autoclosure @escaping @Sendable () -> CurrencyData = CurrencyData.embedded,
        beforeChunk: (@Sendable (Int) -> Void)? = nil, logger: Logger = Logger(label: "tally.currency")
    ) throws {
        let store = try CurrencyStore(engine: engine)
        resources = store
        var loader = CurrencyLoader(store: store)
        loader.beforeChunk = beforeChunk
        loader.onEvent = { event in
            switch event {
            case .waiting(let pid, let host, let loaded, let total):
                logger.info("waiting for another process to load currency data", metadata: [
                    "pid": .stringConvertible(pid), "host": "\(host)", "loaded": .stringConvertible(loaded), "total": .stringConvertible(total)])
            case .tookOver(let pid, let host, let loaded, let total):
                logger.warning("taking over a currency load that went stale", metadata: [
                    "pid": .stringConvertible(pid), "host": "\(host)", "loaded": .stringConvertible(loaded), "total": .stringConvertible(total)])
            case .started(let version, let total):
                logger.info("loading currency data", metadata: ["version": "\(version)", "total": .stringConvertible(total)])
            case .loaded:
                break  // currency.status reports how far it has got
            case .switched(let version, let count):
                logger.info("currency data loaded", metadata: ["version": "\(version)", "count": .stringConvertible(count)])
            }
        }
        loading = CurrencyLoadService(loader: loader, data: data, logger: logger)
    }

    /// The data's load, run in the worker process's service group beside the workers.
    public var backgroundServices: [any Service] { loading.map { [$0] } ?? [] }
}
