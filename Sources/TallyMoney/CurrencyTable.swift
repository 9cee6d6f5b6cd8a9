/// The currencies money arithmetic knows: the active ones of the embedded currency data
/// (`CurrencyData.embedded`, generated from ISO 4217 and Unicode CLDR by
/// `ops/currency-data/generate.py`), and which one each region uses.
///
/// Retired currencies (DEM, FRF, BGN) stay in `CurrencyData` so that a lookup of an old code can
/// explain itself, but are not offered here: amounts in them are refused like unknown codes.
extension Currency {
    /// Every active currency, by code: ISO 4217's current list less the codes without minor units
    /// (gold, silver, SDR, testing). Includes the units of account with four decimal places (CLF, UYW).
    public static var all: [Currency] { table.all }

    /// The active currency with this ISO 4217 code, in any letter case (`usd`, `USD`). Only ASCII
    /// is upper-cased, so no other letter (`ſ` upper-cases to `S`) can pass for a code.
    public static func lookup(_ code: String) -> Currency? {
        guard code.allSatisfy(\.isASCII) else { return nil }
        return table.byCode[code.uppercased()]
    }

    /// The currency of the region in a locale identifier (`en_US`, `en-GB`, `fr_FR.UTF-8`,
    /// `zh-Hans-CN`), or nil when it names no region or one without a currency (`en_AQ`).
    public static func forLocale(_ locale: String) -> Currency? {
        region(ofLocale: locale).flatMap { table.regionCurrency[$0] }.flatMap(lookup)
    }

    /// The region subtag of a locale identifier, upper-case: the first two-letter subtag after the
    /// language, skipping a script (`Hans`) and ignoring an encoding (`.UTF-8`) or modifier (`@euro`).
    public static func region(ofLocale locale: String) -> String? {
        let identifier = locale.prefix(while: { $0 != "." && $0 != "@" })
        return identifier.split(whereSeparator: { $0 == "_" || $0 == "-" }).dropFirst()
            .first(where: { $0.count == 2 && $0.allSatisfy { $0.isASCII && $0.isLetter } })
            .map { $0.uppercased() }
    }

    /// Built from the embedded data once, on first use.
    private static let table = Table(CurrencyData.embedded)

    private struct Table: Sendable {
        let all: [Currency]
        let byCode: [String: Currency]
        let regionCurrency: [String: String]

        init(_ data: CurrencyData) {
            all = data.active.map(\.currency).sorted { $0.code < $1.code }
            byCode = Dictionary(uniqueKeysWithValues: all.map { ($0.code, $0) })
            regionCurrency = data.regionCurrency
        }
    }
}
