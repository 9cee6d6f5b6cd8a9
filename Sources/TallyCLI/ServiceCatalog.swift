import TallyAccounts
import TallyCalc
import TallyCurrency
import TallyShopping
import TallyWorker

/// The services a `tally worker` can run, by name. A new service registers here and nowhere else.
enum ServiceCatalog {
    static func handler(
        named name: String, dataDirectory: String, options: ServiceOptions = ServiceOptions()
    ) throws -> (any ServiceHandler)? {
        switch name {
        case "calc": CalcService()
        case "accounts": try AccountsService(dataDirectory: dataDirectory)
        case "currency": try CurrencyService(dataDirectory: dataDirectory, chunkDelay: options.currencyLoadDelay)
        case "shopping": try ShoppingService(dataDirectory: dataDirectory)
        default: nil
        }
    }

    /// Every service `tally up` starts one worker of.
    static let all = ["calc", "accounts", "currency", "shopping"]
}

/// Settings only some services use, from `tally worker`'s flags.
struct ServiceOptions {
    /// currency: a pause before each chunk of the data load, so tests can watch it load.
    var currencyLoadDelay: Duration = .zero
}
