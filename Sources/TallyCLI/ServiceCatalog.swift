import TallyAccounts
import TallyCalc
import TallyWorker

/// The services a `tally worker` can run, by name. A new service registers here and nowhere else.
enum ServiceCatalog {
    static func handler(named name: String, dataDirectory: String) throws -> (any ServiceHandler)? {
        switch name {
        case "calc": CalcService()
        case "accounts": try AccountsService(dataDirectory: dataDirectory)
        default: nil
        }
    }

    /// Every service `tally up` starts one worker of.
    static let all = ["calc", "accounts"]
}
