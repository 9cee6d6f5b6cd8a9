import Foundation
import TallyMoney
import Testing
import TallyJSON

/// The generated currency data (ISO 4217 + CLDR) built into the binary, and the checks
/// `CurrencyData.decode` makes on a file an operator loads.
@Suite struct CurrencyDataTests {
    let data = CurrencyData.embedded

    private func entry(_ code: String) throws -> CurrencyData.Entry {
        try #require(data.entry(code), "\(code)")
    }

    /// The active currencies whose search symbols include `symbol`.
    private func active(withSymbol symbol: String) -> Set<String> {
        Set(data.active.filter { $0.symbols.contains(symbol) }.map(\.code))
    }

    @Test func embeddedDataDecodesWithItsSources() {
        #expect(data.format == 1)
        #expect(data.version.hasPrefix("iso4217 ") && data.version.contains(" + CLDR "))
        #expect(data.licence.contains("Unicode License v3"))
        #expect(data.generated.count == 10)
        #expect(data.currencies.map(\.code) == data.currencies.map(\.code).sorted())
        #expect(data.active.count > 150 && data.currencies.count > data.active.count + 100)
        #expect(data.territories.count > 200 && data.regionCurrency.count == data.territories.count)
        for entry in data.active {
            #expect(entry.numeric?.count == 3 && entry.isoMinorUnits == entry.minorUnits && entry.isoName != nil, "\(entry.code)")
            #expect(entry.symbols.contains(entry.symbol) && entry.symbols.contains(entry.narrowSymbol), "\(entry.code)")
        }
    }

    /// ops/currency-data/currencies.json is what the generator embedded: neither was edited alone.
    @Test func embeddedDataIsTheCommittedJSONFile() throws {
        let file = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("ops/currency-data/currencies.json")
        #expect(try CurrencyData.decode(Data(contentsOf: file)) == data)
    }

    @Test func encodingAndDecodingGivesTheSameData() throws {
        #expect(try CurrencyData.decode(TallyJSON.encode(data)) == data)
    }

    @Test(arguments: [("JPY", 0), ("USD", 2), ("BHD", 3), ("KWD", 3), ("CLP", 0), ("EUR", 2), ("CLF", 4)])
    func minorUnitsAreISO4217s(_ code: String, _ digits: Int) throws {
        let entry = try entry(code)
        #expect(entry.minorUnits == digits && entry.isoMinorUnits == digits)
    }

    /// Where ISO 4217 and CLDR disagree, both are kept and arithmetic uses ISO's.
    @Test(arguments: [("IQD", 3, 0), ("RSD", 2, 0), ("LBP", 2, 0), ("YER", 2, 0), ("AFN", 2, 0), ("IRR", 2, 0)])
    func isoAndCLDRMinorUnitsAreBothKept(_ code: String, _ iso: Int, _ cldr: Int) throws {
        let entry = try entry(code)
        #expect(entry.isoMinorUnits == iso && entry.cldrMinorUnits == cldr && entry.minorUnits == iso)
    }

    @Test func everyDisagreementIsResolvedForISO() {
        let differing = data.active.filter { $0.isoMinorUnits != $0.cldrMinorUnits }
        #expect(Set(differing.map(\.code)) == ["AFN", "ALL", "IQD", "IRR", "KPW", "LAK", "LBP", "MGA", "MMK", "RSD", "SOS", "SYP", "YER"])
        #expect(differing.allSatisfy { $0.minorUnits == $0.isoMinorUnits })
    }

    @Test func cashRoundingComesFromCLDR() throws {
        #expect(try entry("CHF").cashRounding == "0.05")
        #expect(try entry("CHF").cashRoundingMinor == 5)
        #expect(try entry("CAD").cashRounding == "0.05")
        #expect(try entry("DKK").cashRounding == "0.5")
        #expect(try entry("SEK").cashRounding == "1")
        #expect(try entry("IQD").cashRounding == "1")
        #expect(try entry("USD").cashRounding == nil)
        #expect(try entry("JPY").cashRounding == nil)
    }

    @Test(arguments: [
        ("ja_JP", "JPY"), ("en_GB", "GBP"), ("de_CH", "CHF"), ("zh_CN", "CNY"), ("en_US", "USD"), ("de_DE", "EUR"),
        ("fr-CH", "CHF"), ("bg_BG", "EUR"),
    ])
    func localesChooseTheirRegionsCurrency(_ locale: String, _ code: String) {
        #expect(data.entry(forLocale: locale)?.code == code)
    }

    @Test(arguments: [
        ("USD", "US Dollar", "米ドル", "美元"), ("EUR", "Euro", "ユーロ", "欧元"), ("JPY", "Japanese Yen", "日本円", "日元"),
        ("CHF", "Swiss Franc", "スイス フラン", "瑞士法郎"),
    ])
    func namesInEnglishJapaneseAndChinese(_ code: String, _ en: String, _ ja: String, _ zh: String) throws {
        #expect(try entry(code).names == ["en": en, "ja": ja, "zh": zh])
    }

    @Test func symbolsFindTheirCurrencies() throws {
        #expect(active(withSymbol: "kr") == ["SEK", "NOK", "DKK", "ISK"])
        #expect(active(withSymbol: "€") == ["EUR"])
        #expect(active(withSymbol: "¥") == ["JPY", "CNY"])
        #expect(active(withSymbol: "Fr") == ["CHF"])
        #expect(active(withSymbol: "$").isSuperset(of: ["USD", "CAD", "AUD", "MXN"]))
        #expect(try entry("USD").symbol == "$" && entry("EUR").symbol == "€" && entry("JPY").symbol == "¥")
        #expect(try entry("SEK").narrowSymbol == "kr" && entry("CNY").narrowSymbol == "¥")
    }

    @Test func territoriesHaveNamesAndCurrencies() throws {
        #expect(data.territories["CH"] == ["en": "Switzerland", "ja": "スイス", "zh": "瑞士"])
        #expect(data.territories["JP"]?["ja"] == "日本")
        #expect(try entry("CHF").countries == ["CH", "LI"])
        #expect(try entry("EUR").countries.contains("DE"))
        #expect(data.territories["AQ"] == nil && data.territories["EU"] == nil)
    }

    @Test(arguments: ["DEM", "FRF", "BGN"])
    func retiredCurrenciesExplainThemselves(_ code: String) throws {
        let entry = try entry(code)
        #expect(entry.retired && entry.countries.isEmpty && entry.numeric == nil && entry.isoMinorUnits == nil)
        #expect(!entry.name.isEmpty && entry.names["ja"] != nil)
        #expect(!data.active.contains { $0.code == code })
        #expect(!data.regionCurrency.values.contains(code))
    }

    // MARK: Loading files

    /// A small valid file, with `currencies`, `territories` and `region_currency` replaceable.
    private func file(
        format: String = "1",
        currencies: [String] = [Self.usd, Self.chf],
        territories: String = #"{"US": {"en": "United States"}, "CH": {"en": "Switzerland"}}"#,
        regions: String = #"{"US": "USD", "CH": "CHF"}"#
    ) -> Data {
        Data("""
            {"format": \(format), "version": "test", "generated": "2026-01-01", "licence": "test",
             "currencies": [\(currencies.joined(separator: ", "))],
             "territories": \(territories), "region_currency": \(regions)}
            """.utf8)
    }

    private static let usd = #"""
        {"code": "USD", "numeric": "840", "minor_units": 2, "iso_minor_units": 2, "cldr_minor_units": 2, "cash_rounding": null,
         "symbol": "$", "narrow_symbol": "$", "symbols": ["$"], "names": {"en": "US Dollar"}, "iso_name": "US Dollar",
         "countries": ["US"], "retired": false}
        """#
    private static let chf = #"""
        {"code": "CHF", "numeric": "756", "minor_units": 2, "iso_minor_units": 2, "cldr_minor_units": 2, "cash_rounding": "0.05",
         "symbol": "CHF", "narrow_symbol": "CHF", "symbols": ["CHF", "Fr"], "names": {"en": "Swiss Franc"}, "iso_name": "Swiss Franc",
         "countries": ["CH"], "retired": false}
        """#
    private static let dem = #"""
        {"code": "DEM", "numeric": null, "minor_units": 2, "iso_minor_units": null, "cldr_minor_units": 2, "cash_rounding": null,
         "symbol": "DEM", "narrow_symbol": "DEM", "symbols": ["DEM"], "names": {"en": "German Mark"}, "iso_name": null,
         "countries": [], "retired": true}
        """#

    private func rejection(_ data: Data) -> String? {
        do {
            _ = try CurrencyData.decode(data)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func aSmallFileLoads() throws {
        let loaded = try CurrencyData.decode(file(currencies: [Self.usd, Self.chf, Self.dem]))
        #expect(loaded.currencies.map(\.code) == ["USD", "CHF", "DEM"])
        #expect(loaded.entry("chf")?.cashRoundingMinor == 5)
        #expect(loaded.entry(forLocale: "de_CH")?.code == "CHF")
        #expect(loaded.active.map(\.code) == ["USD", "CHF"])
    }

    @Test func rejectsADuplicateCode() {
        #expect(rejection(file(currencies: [Self.usd, Self.chf, Self.usd])) == "currencies[2] (USD): code USD appears twice, first at currencies[0]")
    }

    @Test func rejectsARegionWhoseCurrencyIsMissingOrRetired() {
        #expect(rejection(file(regions: #"{"US": "USD", "CH": "XYZ"}"#)) == "region_currency.CH: currency XYZ is not in currencies")
        #expect(rejection(file(currencies: [Self.usd, Self.chf, Self.dem], regions: #"{"US": "DEM"}"#)) == "region_currency.US: currency DEM is retired")
        #expect(rejection(file(regions: #"{"DE": "USD"}"#)) == "region_currency.DE: region DE is not in territories")
    }

    @Test func rejectsAnotherFormat() {
        #expect(rejection(file(format: "2")) == "currency data format 2 is not supported; this Tally reads format 1")
        #expect(rejection(Data("[]".utf8))?.hasPrefix("currency data is not a JSON object with a format field") == true)
    }

    @Test func rejectsBadEntries() {
        let fiveDigits = Self.usd.replacingOccurrences(of: #""minor_units": 2"#, with: #""minor_units": 5"#)
        #expect(rejection(file(currencies: [fiveDigits, Self.chf])) == "currencies[0] (USD): minor_units 5 is outside 0...4")
        let lowerCase = Self.usd.replacingOccurrences(of: #""code": "USD""#, with: #""code": "usd""#)
        #expect(rejection(file(currencies: [Self.chf, lowerCase])) == #"currencies[1]: code "usd" is not three upper-case letters A to Z"#)
        let fineCash = Self.chf.replacingOccurrences(of: #""0.05""#, with: #""0.005""#)
        #expect(rejection(file(currencies: [Self.usd, fineCash])) == #"currencies[1] (CHF): cash_rounding "0.005" is not a positive decimal with at most 2 decimal places"#)
        let noCountry = Self.chf.replacingOccurrences(of: #"["CH"]"#, with: #"["FR"]"#)
        #expect(rejection(file(currencies: [Self.usd, noCountry])) == "currencies[1] (CHF): country FR is not in territories")
        let textDigits = Self.usd.replacingOccurrences(of: #""minor_units": 2"#, with: #""minor_units": "2""#)
        #expect(rejection(file(currencies: [textDigits, Self.chf])) == "currency data is malformed: currencies[0].minor_units: expected Int")
        let noSymbol = Self.usd.replacingOccurrences(of: #""symbol": "$", "#, with: "")
        #expect(rejection(file(currencies: [noSymbol, Self.chf])) == "currency data is malformed: currencies[0].symbol: missing")
    }
}
