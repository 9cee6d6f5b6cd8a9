import TallyAccounts
import TallyCalc
import TallyCurrency
import TallyNotifier
import TallyShopping
import TallyStorage
import TallyWorker

/// The services a `tally worker` can run, by name. A new service registers here and nowhere else.
enum ServiceCatalog {
    static func handler(
        named name: String, dataDirectory: String, options: ServiceOptions = ServiceOptions()
    ) throws -> (any ServiceHandler)? {
        switch name {
        case "calc": CalcService()
        case "accounts": try AccountsService(dataDirectory: dataDirectory, eventSink: options.eventSink)
        case "currency": try CurrencyService(dataDirectory: dataDirectory, chunkDelay: options.currencyLoadDelay)
        case "shopping": try ShoppingService(dataDirectory: dataDirectory, eventSink: options.eventSink)
        // Read replicas of the notifier's alerts.list, on <data-dir>/notifier.sqlite; the
        // notifier process (`tally notifier`) serves it too, so `tally up` starts no extra worker.
        case "alerts": try AlertsService(dataDirectory: dataDirectory)
        default: nil
        }
    }

    /// Every service `tally worker` accepts: those of `tally up`, and `alerts` (served by the notifier).
    static var workerServices: [String] { all + ["alerts"] }

    /// Every service `tally up` starts one worker of.
    static let all = ["calc", "accounts", "currency", "shopping"]

    /// Services that record domain events, whose workers run an event publisher.
    static let publishingEvents: Set<String> = ["accounts", "shopping"]
}

/// Settings only some services use, from `tally worker`'s flags.
struct ServiceOptions {
    /// currency: a pause before each chunk of the data load, so tests can watch it load.
    var currencyLoadDelay: Duration = .zero
    /// Services that record events: where committed events go (the worker's publisher).
    var eventSink: (any EventSink)?
}
