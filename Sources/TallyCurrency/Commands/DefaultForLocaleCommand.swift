import TallyMoney
import TallyProtocol

/// `currency.default_for_locale`: the currency a new account starts with, from the user's locale
/// (its region: `ja_JP` is JPY, `de_CH` CHF).
enum DefaultForLocaleCommand {
    static func run(_ store: CurrencyStore, _ args: Arguments, _ context: RequestContext) throws -> LocaleDefault {
        try args.allowOnly(["locale"])
        // Blame the argument when there is one, and otherwise the envelope's locale.
        let field = args.has("locale") ? args.field("locale") : "locale"
        guard let locale = try args.optionalString("locale") ?? context.locale else {
            throw TallyError.invalidArgument(
                "locale is required when the request has no locale (a locale such as \"en_US\" or \"de-CH\")",
                field: args.field("locale"))
        }
        guard !locale.isEmpty, locale.utf8.count <= 256 else {
            throw TallyError.invalidArgument("locale must be 1 to 256 bytes long", field: field)
        }
        // Names are in the language the request asks for, or else the locale's.
        let language = NameLanguage(locale: context.locale ?? locale)
        guard let region = Currency.region(ofLocale: locale) else {
            throw TallyError(
                .notFound,
                "locale '\(locale)' names no region, so it has no default currency; give one with a region, such as \"en_US\" or \"de-CH\"",
                field: field)
        }
        guard let currency = try store.defaultCurrency(region: region, language: language) else {
            throw TallyError(
                .notFound, "no currency is known for region \(region) (of locale '\(locale)')", field: field)
        }
        return LocaleDefault(locale: locale, region: region, currency: currency)
    }
}
