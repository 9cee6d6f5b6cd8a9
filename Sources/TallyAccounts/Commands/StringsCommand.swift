import TallyProtocol

/// `accounts.strings`: the word list of the add-account and currency-picker screens in one language.
enum StringsCommand {
    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: AccountStore) throws -> WordListResult {
        try args.allowOnly(["locale"])
        let language = Language(locale: try args.optionalString("locale") ?? context.locale)
        let strings = try store.read { session in
            try Dictionary(uniqueKeysWithValues: session.fetchAll(
                "SELECT key, text FROM localized_string WHERE language = \(language.rawValue)"
            ).map { (try $0["key"] as String, try $0["text"] as String) })
        }
        return WordListResult(locale: language.rawValue, strings: strings)
    }
}

struct WordListResult: Encodable, Sendable {
    /// The language used: `en`, `ja` or `zh`.
    let locale: String
    let strings: [String: String]
}
