import Foundation
import TallyJSON

/// Tally's currency data: ISO 4217 codes and minor units with Unicode CLDR's symbols, names,
/// territories and cash rounding, in the JSON format that `ops/currency-data/generate.py` writes
/// (`ops/currency-data/currencies.json`, described in `docs/currency-data.md`).
///
/// `CurrencyData.embedded` is the set built into the binary, which money arithmetic uses through
/// `Currency`; `CurrencyData.decode(_:)` reads and checks a file in the same format, such as one
/// an operator loads with `tally currency load`.
public struct CurrencyData: Codable, Sendable, Hashable {
    /// The format version this Tally reads and writes.
    public static let currentFormat = 1

    /// The format version of the file: 1.
    public var format: Int
    /// The sources and their versions: `iso4217 1.16.20260101 + CLDR 47 (babel 2.18.0)`.
    public var version: String
    /// The date (`YYYY-MM-DD`) the data describes: which territories use which currency on it.
    public var generated: String
    /// A short notice on the sources' licences.
    public var licence: String
    /// Every currency, active and retired, sorted by code.
    public var currencies: [Entry]
    /// Names of the territories (ISO 3166-1 alpha-2 codes, upper-case) that appear in `countries`,
    /// by language (`en`, `ja`, `zh`).
    public var territories: [String: [String: String]]
    /// The currency each territory uses by default: what `"auto"` picks for a locale in it.
    public var regionCurrency: [String: String]

    public init(
        format: Int = CurrencyData.currentFormat, version: String, generated: String, licence: String,
        currencies: [Entry], territories: [String: [String: String]], regionCurrency: [String: String]
    ) {
        self.format = format
        self.version = version
        self.generated = generated
        self.licence = licence
        self.currencies = currencies
        self.territories = territories
        self.regionCurrency = regionCurrency
    }

    /// One currency of the data.
    public struct Entry: Codable, Sendable, Hashable {
        /// The ISO 4217 alphabetic code, upper-case: `CHF`.
        public var code: String
        /// The ISO 4217 numeric code, three digits (`"756"`), or nil for a retired currency.
        public var numeric: String?
        /// The decimal places money arithmetic uses: ISO 4217's, or CLDR's for a retired currency
        /// that ISO no longer lists.
        public var minorUnits: Int
        /// ISO 4217's minor units, or nil for a retired currency.
        public var isoMinorUnits: Int?
        /// CLDR's minor units (its `digits`), which differ from ISO's for a few currencies (IQD,
        /// RSD, LBP, YER, ...); nil when unknown.
        public var cldrMinorUnits: Int?
        /// The smallest amount cash payments use when it is coarser than the minor unit, as a
        /// decimal (`"0.05"` for CHF), or nil.
        public var cashRounding: String?
        /// CLDR's symbol in English: `$`, `€`, `CHF`.
        public var symbol: String
        /// A short symbol for where the currency is known from context: `$` for CAD, `kr` for SEK.
        public var narrowSymbol: String
        /// Every symbol a search should find this currency by, `symbol` and `narrowSymbol` included.
        public var symbols: [String]
        /// Names by language: `en` always, `ja` and `zh` when CLDR has them.
        public var names: [String: String]
        /// ISO 4217's English name (`Pound Sterling`), or nil for a retired currency.
        public var isoName: String?
        /// The territories that use the currency on the data's date; empty for a retired one.
        public var countries: [String]
        /// True for a currency ISO 4217 no longer lists. Searches leave these out by default.
        public var retired: Bool

        public init(
            code: String, numeric: String?, minorUnits: Int, isoMinorUnits: Int?, cldrMinorUnits: Int?,
            cashRounding: String?, symbol: String, narrowSymbol: String, symbols: [String],
            names: [String: String], isoName: String?, countries: [String], retired: Bool
        ) {
            self.code = code
            self.numeric = numeric
            self.minorUnits = minorUnits
            self.isoMinorUnits = isoMinorUnits
            self.cldrMinorUnits = cldrMinorUnits
            self.cashRounding = cashRounding
            self.symbol = symbol
            self.narrowSymbol = narrowSymbol
            self.symbols = symbols
            self.names = names
            self.isoName = isoName
            self.countries = countries
            self.retired = retired
        }

        /// The English name.
        public var name: String { names["en"] ?? code }

        /// The currency for money arithmetic: code, minor units, symbol and English name.
        public var currency: Currency {
            Currency(code: code, minorUnits: minorUnits, symbol: symbol, name: name)
        }

        /// The cash rounding in minor units (CHF `"0.05"` is 5), or nil when there is none.
        public var cashRoundingMinor: Int128? {
            cashRounding.flatMap { try? DecimalText.parse($0, scale: minorUnits) }
        }
    }

    /// The currency with this code in any letter case, active or retired.
    public func entry(_ code: String) -> Entry? {
        guard code.allSatisfy(\.isASCII) else { return nil }
        let code = code.uppercased()
        return currencies.first { $0.code == code }
    }

    /// The currency `"auto"` picks for a locale identifier (`ja_JP`, `de-CH`), or nil when the
    /// locale names no region or one without a currency.
    public func entry(forLocale locale: String) -> Entry? {
        Currency.region(ofLocale: locale).flatMap { regionCurrency[$0] }.flatMap { entry($0) }
    }

    /// The active currencies: those in ISO 4217 today.
    public var active: [Entry] { currencies.filter { !$0.retired } }
}

/// Why currency data could not be read: the message names the offending entry and field.
public struct CurrencyDataError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

extension CurrencyData {
    /// The data built into this binary (`CurrencyData.generated.swift`), decoded on first use.
    public static let embedded: CurrencyData = {
        do {
            return try decode(Data(currencyDataJSON.utf8))
        } catch {
            fatalError("The embedded currency data is invalid: \(error). Regenerate it with ops/currency-data/generate.py.")
        }
    }()

    /// Reads currency data in format 1 and checks it: the format version, unique three-letter
    /// codes, minor units from 0 to 4, cash roundings that are whole multiples of the minor unit,
    /// an English name and a symbol for each currency, countries and region defaults that name
    /// known territories, and region defaults that name active currencies.
    public static func decode(_ data: Data) throws(CurrencyDataError) -> CurrencyData {
        let format: Int?
        do {
            format = try TallyJSON.decode(FormatOnly.self, from: data).format
        } catch {
            throw CurrencyDataError("currency data is not a JSON object with a format field: \(describe(error))")
        }
        guard format == currentFormat else {
            throw CurrencyDataError(
                "currency data format \(format.map(String.init) ?? "null") is not supported; this Tally reads format \(currentFormat)")
        }
        let decoded: CurrencyData
        do {
            decoded = try TallyJSON.decode(CurrencyData.self, from: data)
        } catch {
            throw CurrencyDataError("currency data is malformed: \(describe(error))")
        }
        try decoded.validate()
        return decoded
    }

    private struct FormatOnly: Decodable { let format: Int? }

    private func validate() throws(CurrencyDataError) {
        guard !currencies.isEmpty else { throw CurrencyDataError("currencies is empty") }
        var seen: [String: Int] = [:]
        for (position, entry) in currencies.enumerated() {
            let label = "currencies[\(position)]"
            guard entry.code.utf8.count == 3, entry.code.utf8.allSatisfy({ (65...90).contains($0) }) else {
                throw CurrencyDataError("\(label): code \"\(entry.code)\" is not three upper-case letters A to Z")
            }
            let name = "\(label) (\(entry.code))"
            if let first = seen[entry.code] {
                throw CurrencyDataError("\(name): code \(entry.code) appears twice, first at currencies[\(first)]")
            }
            seen[entry.code] = position
            for (field, units) in [("minor_units", entry.minorUnits), ("iso_minor_units", entry.isoMinorUnits),
                                   ("cldr_minor_units", entry.cldrMinorUnits)] {
                if let units, !(0...DecimalText.maxScale).contains(units) {
                    throw CurrencyDataError("\(name): \(field) \(units) is outside 0...\(DecimalText.maxScale)")
                }
            }
            if let numeric = entry.numeric, numeric.utf8.count != 3 || !numeric.utf8.allSatisfy({ (48...57).contains($0) }) {
                throw CurrencyDataError("\(name): numeric \"\(numeric)\" is not three digits")
            }
            if let cash = entry.cashRounding, (entry.cashRoundingMinor ?? 0) <= 0 {
                throw CurrencyDataError(
                    "\(name): cash_rounding \"\(cash)\" is not a positive decimal with at most \(entry.minorUnits) decimal places")
            }
            guard !(entry.names["en"] ?? "").isEmpty else { throw CurrencyDataError("\(name): names has no en name") }
            guard !entry.symbol.isEmpty else { throw CurrencyDataError("\(name): symbol is empty") }
            for country in entry.countries where territories[country] == nil {
                throw CurrencyDataError("\(name): country \(country) is not in territories")
            }
        }
        for (territory, names) in territories.sorted(by: { $0.key < $1.key }) {
            guard territory.utf8.count == 2, territory.utf8.allSatisfy({ (65...90).contains($0) }) else {
                throw CurrencyDataError("territories: \"\(territory)\" is not a two-letter upper-case region code")
            }
            guard !(names["en"] ?? "").isEmpty else { throw CurrencyDataError("territories.\(territory): no en name") }
        }
        for (region, code) in regionCurrency.sorted(by: { $0.key < $1.key }) {
            guard territories[region] != nil else {
                throw CurrencyDataError("region_currency.\(region): region \(region) is not in territories")
            }
            guard let position = seen[code] else {
                throw CurrencyDataError("region_currency.\(region): currency \(code) is not in currencies")
            }
            guard !currencies[position].retired else {
                throw CurrencyDataError("region_currency.\(region): currency \(code) is retired")
            }
        }
    }

    /// A decoding error as a path and a reason: `currencies[3].minor_units: expected Int`.
    private static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        func path(_ context: DecodingError.Context, _ extra: CodingKey? = nil) -> String {
            let keys = context.codingPath + (extra.map { [$0] } ?? [])
            let text = keys.reduce("") { text, key in
                if let index = key.intValue { return text + "[\(index)]" }
                return text.isEmpty ? key.stringValue : text + "." + key.stringValue
            }
            return text.isEmpty ? "top level" : text
        }
        switch error {
        case .typeMismatch(let type, let context):
            return "\(path(context)): expected \(type)"
        case .valueNotFound(let type, let context):
            return "\(path(context)): expected \(type), found null"
        case .keyNotFound(let key, let context):
            return "\(path(context, key)): missing"
        case .dataCorrupted(let context):
            let underlying = context.underlyingError.map { " (\($0.localizedDescription))" } ?? ""
            return "\(path(context)): \(context.debugDescription)\(underlying)"
        @unknown default:
            return "\(error)"
        }
    }
}
