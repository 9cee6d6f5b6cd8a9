import TallyProtocol

/// `currency.status`: whether the currency data is ready, and how far loading has got if not.
enum StatusCommand {
    static func run(_ store: CurrencyStore, _ args: Arguments, _ context: RequestContext) throws -> CurrencyStatus {
        try args.allowOnly([])
        return try store.status()
    }
}
