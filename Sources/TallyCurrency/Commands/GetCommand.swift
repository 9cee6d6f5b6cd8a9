import TallyProtocol

/// `currency.get`: everything about one currency, by its ISO 4217 code, retired ones included.
enum GetCommand {
    static func run(_ store: CurrencyStore, _ args: Arguments, _ context: RequestContext) throws -> CurrencyDetail {
        try args.allowOnly(["code"])
        let text = try args.string("code", example: "an ISO 4217 code such as \"EUR\"")
        guard text.utf8.count == 3, text.utf8.allSatisfy({ (65...90).contains($0) || (97...122).contains($0) }) else {
            throw TallyError.invalidArgument(
                "code must be three letters, an ISO 4217 code such as \"EUR\"", field: args.field("code"))
        }
        let code = text.uppercased()
        guard let currency = try store.currency(code: code, language: NameLanguage(locale: context.locale)) else {
            throw TallyError(
                .notFound,
                "there is no currency with the code \(code); currency.search finds currencies by name, country or symbol",
                field: args.field("code"))
        }
        return currency
    }
}
