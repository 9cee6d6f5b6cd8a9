/// The built-in currency data: common active ISO 4217 currencies and which one each region uses.
///
/// Everything else reaches this data through `Currency.lookup(_:)`, `Currency.forLocale(_:)` and
/// `Currency.all`, so replacing this hand-written table with generated ISO 4217/CLDR data later
/// touches only this file.
extension Currency {
    /// Every built-in currency, in table order.
    public static let all: [Currency] = table.map { Currency(code: $0.0, minorUnits: $0.1, symbol: $0.2, name: $0.3) }

    /// The currency with this ISO 4217 code, in any letter case (`usd`, `USD`). Only ASCII is
    /// upper-cased, so no other letter (`ſ` upper-cases to `S`) can pass for a code.
    public static func lookup(_ code: String) -> Currency? {
        guard code.allSatisfy(\.isASCII) else { return nil }
        return byCode[code.uppercased()]
    }

    /// The currency of the region in a locale identifier (`en_US`, `en-GB`, `fr_FR.UTF-8`,
    /// `zh-Hans-CN`), or nil when it names no region or one this table does not know.
    public static func forLocale(_ locale: String) -> Currency? {
        region(ofLocale: locale).flatMap { regionCurrency[$0] }.flatMap(lookup)
    }

    /// The region subtag of a locale identifier, upper-case: the first two-letter subtag after the
    /// language, skipping a script (`Hans`) and ignoring an encoding (`.UTF-8`) or modifier (`@euro`).
    public static func region(ofLocale locale: String) -> String? {
        let identifier = locale.prefix(while: { $0 != "." && $0 != "@" })
        return identifier.split(whereSeparator: { $0 == "_" || $0 == "-" }).dropFirst()
            .first(where: { $0.count == 2 && $0.allSatisfy { $0.isASCII && $0.isLetter } })
            .map { $0.uppercased() }
    }

    private static let byCode = Dictionary(uniqueKeysWithValues: all.map { ($0.code, $0) })

    // Code, minor digits (ISO 4217), symbol, English name.
    private static let table: [(String, Int, String, String)] = [
        // Zero decimal places.
        ("JPY", 0, "¥", "Yen"), ("KRW", 0, "₩", "Won"), ("VND", 0, "₫", "Dong"),
        ("CLP", 0, "$", "Chilean Peso"), ("ISK", 0, "kr", "Iceland Krona"), ("PYG", 0, "₲", "Guarani"),
        ("UGX", 0, "USh", "Uganda Shilling"), ("XAF", 0, "FCFA", "CFA Franc BEAC"),
        ("XOF", 0, "CFA", "CFA Franc BCEAO"), ("XPF", 0, "₣", "CFP Franc"), ("RWF", 0, "FRw", "Rwanda Franc"),
        ("BIF", 0, "FBu", "Burundi Franc"), ("DJF", 0, "Fdj", "Djibouti Franc"), ("GNF", 0, "FG", "Guinean Franc"),
        ("KMF", 0, "CF", "Comorian Franc"), ("VUV", 0, "VT", "Vatu"),
        // Three decimal places.
        ("BHD", 3, "BD", "Bahraini Dinar"), ("KWD", 3, "KD", "Kuwaiti Dinar"), ("OMR", 3, "RO", "Rial Omani"),
        ("JOD", 3, "JD", "Jordanian Dinar"), ("TND", 3, "DT", "Tunisian Dinar"), ("LYD", 3, "LD", "Libyan Dinar"),
        ("IQD", 3, "ID", "Iraqi Dinar"),
        // Two decimal places.
        ("USD", 2, "$", "US Dollar"), ("EUR", 2, "€", "Euro"), ("GBP", 2, "£", "Pound Sterling"),
        ("CHF", 2, "Fr", "Swiss Franc"), ("CNY", 2, "¥", "Yuan Renminbi"), ("CAD", 2, "$", "Canadian Dollar"),
        ("AUD", 2, "$", "Australian Dollar"), ("NZD", 2, "$", "New Zealand Dollar"),
        ("HKD", 2, "$", "Hong Kong Dollar"), ("SGD", 2, "$", "Singapore Dollar"), ("SEK", 2, "kr", "Swedish Krona"),
        ("NOK", 2, "kr", "Norwegian Krone"), ("DKK", 2, "kr", "Danish Krone"), ("PLN", 2, "zł", "Zloty"),
        ("CZK", 2, "Kč", "Czech Koruna"), ("HUF", 2, "Ft", "Forint"), ("RON", 2, "lei", "Romanian Leu"),
        ("BGN", 2, "лв", "Bulgarian Lev"), ("TRY", 2, "₺", "Turkish Lira"), ("RUB", 2, "₽", "Russian Ruble"),
        ("UAH", 2, "₴", "Hryvnia"), ("ILS", 2, "₪", "New Israeli Sheqel"), ("AED", 2, "AED", "UAE Dirham"),
        ("SAR", 2, "SAR", "Saudi Riyal"), ("QAR", 2, "QAR", "Qatari Rial"), ("INR", 2, "₹", "Indian Rupee"),
        ("PKR", 2, "Rs", "Pakistan Rupee"), ("BDT", 2, "৳", "Taka"), ("LKR", 2, "Rs", "Sri Lanka Rupee"),
        ("NPR", 2, "Rs", "Nepalese Rupee"), ("THB", 2, "฿", "Baht"), ("MYR", 2, "RM", "Malaysian Ringgit"),
        ("IDR", 2, "Rp", "Rupiah"), ("PHP", 2, "₱", "Philippine Peso"), ("TWD", 2, "NT$", "New Taiwan Dollar"),
        ("KZT", 2, "₸", "Tenge"), ("GEL", 2, "₾", "Lari"), ("RSD", 2, "RSD", "Serbian Dinar"),
        ("ZAR", 2, "R", "Rand"), ("NGN", 2, "₦", "Naira"), ("KES", 2, "KSh", "Kenyan Shilling"),
        ("GHS", 2, "GH₵", "Ghana Cedi"), ("TZS", 2, "TSh", "Tanzanian Shilling"), ("EGP", 2, "E£", "Egyptian Pound"),
        ("MAD", 2, "DH", "Moroccan Dirham"), ("DZD", 2, "DA", "Algerian Dinar"), ("BRL", 2, "R$", "Brazilian Real"),
        ("MXN", 2, "$", "Mexican Peso"), ("ARS", 2, "$", "Argentine Peso"), ("COP", 2, "$", "Colombian Peso"),
        ("PEN", 2, "S/", "Sol"), ("UYU", 2, "$U", "Peso Uruguayo"), ("BOB", 2, "Bs", "Boliviano"),
        ("CRC", 2, "₡", "Costa Rican Colon"), ("DOP", 2, "RD$", "Dominican Peso"), ("GTQ", 2, "Q", "Quetzal"),
        ("JMD", 2, "J$", "Jamaican Dollar"),
    ]

    // Region (ISO 3166-1 alpha-2) to currency code, for `"auto"`. Bulgaria has used the euro since 2026.
    private static let regionCurrency: [String: String] = [
        "US": "USD", "PR": "USD", "EC": "USD", "SV": "USD", "GB": "GBP", "CH": "CHF", "LI": "CHF",
        "JP": "JPY", "CN": "CNY", "CA": "CAD", "AU": "AUD", "NZ": "NZD", "HK": "HKD", "SG": "SGD",
        "SE": "SEK", "NO": "NOK", "DK": "DKK", "IS": "ISK", "PL": "PLN", "CZ": "CZK", "HU": "HUF",
        "RO": "RON", "TR": "TRY", "RU": "RUB", "UA": "UAH", "IL": "ILS", "AE": "AED", "SA": "SAR",
        "QA": "QAR", "IN": "INR", "PK": "PKR", "BD": "BDT", "LK": "LKR", "NP": "NPR", "TH": "THB",
        "MY": "MYR", "ID": "IDR", "PH": "PHP", "VN": "VND", "KR": "KRW", "TW": "TWD", "KZ": "KZT",
        "GE": "GEL", "RS": "RSD", "ZA": "ZAR", "NG": "NGN", "KE": "KES", "GH": "GHS", "TZ": "TZS",
        "UG": "UGX", "RW": "RWF", "EG": "EGP", "MA": "MAD", "DZ": "DZD", "TN": "TND", "LY": "LYD",
        "BR": "BRL", "MX": "MXN", "AR": "ARS", "CL": "CLP", "CO": "COP", "PE": "PEN", "UY": "UYU",
        "PY": "PYG", "BO": "BOB", "CR": "CRC", "DO": "DOP", "GT": "GTQ", "JM": "JMD",
        "BH": "BHD", "KW": "KWD", "OM": "OMR", "JO": "JOD", "IQ": "IQD",
        // Euro area, and the states that use the euro by agreement.
        "AT": "EUR", "BE": "EUR", "BG": "EUR", "CY": "EUR", "DE": "EUR", "EE": "EUR", "ES": "EUR",
        "FI": "EUR", "FR": "EUR", "GR": "EUR", "HR": "EUR", "IE": "EUR", "IT": "EUR", "LT": "EUR",
        "LU": "EUR", "LV": "EUR", "MT": "EUR", "NL": "EUR", "PT": "EUR", "SI": "EUR", "SK": "EUR",
        "AD": "EUR", "MC": "EUR", "SM": "EUR", "VA": "EUR", "ME": "EUR", "XK": "EUR",
        // CFA francs.
        "CM": "XAF", "CF": "XAF", "TD": "XAF", "CG": "XAF", "GQ": "XAF", "GA": "XAF",
        "BJ": "XOF", "BF": "XOF", "CI": "XOF", "GW": "XOF", "ML": "XOF", "NE": "XOF", "SN": "XOF", "TG": "XOF",
    ]
}
