import Testing
import TallyMoney

@Suite struct CurrencyTests {
    @Test func minorUnitsFollowISO4217() throws {
        let expected: [String: Int] = [
            "USD": 2, "EUR": 2, "GBP": 2, "CHF": 2, "JPY": 0, "KRW": 0, "VND": 0, "CLP": 0, "ISK": 0, "PYG": 0,
            "UGX": 0, "XAF": 0, "XOF": 0, "BHD": 3, "KWD": 3, "OMR": 3, "JOD": 3, "TND": 3, "LYD": 3, "IQD": 3,
            "IDR": 2, "HUF": 2, "TWD": 2, "COP": 2, "CLF": 4, "UYW": 4,
            // CLDR says 0 for these; arithmetic uses ISO 4217 (docs/currency-data.md).
            "RSD": 2, "LBP": 2, "YER": 2, "AFN": 2, "IRR": 2,
        ]
        for (code, digits) in expected {
            #expect(try #require(Currency.lookup(code)).minorUnits == digits, "\(code)")
        }
    }

    @Test func tableCoversTheCommonCurrenciesOnce() {
        // BGN left this list with the generated data: ISO 4217 withdrew it when Bulgaria adopted
        // the euro on 2026-01-01, so it is a retired currency now (see CurrencyDataTests).
        let required = """
            USD EUR GBP CHF JPY CNY CAD AUD NZD HKD SGD SEK NOK DKK ISK PLN CZK HUF RON TRY RUB UAH ILS AED SAR QAR \
            INR PKR BDT THB MYR IDR PHP VND KRW TWD ZAR NGN KES EGP MAD BRL MXN ARS CLP COP PEN UYU BHD KWD OMR JOD TND \
            LYD IQD PYG UGX XAF XOF
            """.split(separator: " ").map(String.init)
        for code in required { #expect(Currency.lookup(code) != nil, "\(code)") }
        #expect(Set(Currency.all.map(\.code)).count == Currency.all.count)
        #expect(Currency.all.allSatisfy { $0.code.count == 3 && !$0.symbol.isEmpty && !$0.name.isEmpty })
        #expect(Currency.all.map(\.code) == Currency.all.map(\.code).sorted())
    }

    @Test func tableHoldsEveryActiveCurrencyAndNoRetiredOne() throws {
        let data = CurrencyData.embedded
        #expect(Currency.all.map(\.code) == data.active.map(\.code).sorted())
        #expect(Currency.all.count > 150)
        for code in ["DEM", "FRF", "BGN", "HRK"] {
            #expect(try #require(data.entry(code)).retired, "\(code)")
            #expect(Currency.lookup(code) == nil, "\(code)")
        }
        // ISO's codes without minor units (gold, SDR, testing) are in neither.
        for code in ["XAU", "XDR", "XTS", "XXX"] {
            #expect(Currency.lookup(code) == nil && data.entry(code) == nil, "\(code)")
        }
    }

    /// ISO 4217 gives the units of account CLF and UYW four decimal places, so Currency takes 0 to 4.
    @Test func fourDecimalUnitsOfAccountParseAndFormat() throws {
        let clf = try #require(Currency.lookup("CLF"))
        #expect(clf.minorUnits == 4 && Currency.lookup("UYW")?.minorUnits == 4)
        #expect(try clf.parseAmount("1.2345") == 12345)
        #expect(clf.format(12345) == "1.2345")
        #expect(clf.largestAmount == 9_999_999_999_999_999)
        #expect(throws: DecimalTextError.tooManyFractionDigits(found: 5, allowed: 4)) { try clf.parseAmount("1.23456") }
    }

    @Test func namesAndSymbolsAreCLDRsEnglishOnes() throws {
        let expected = [("USD", "$", "US Dollar"), ("EUR", "€", "Euro"), ("JPY", "¥", "Japanese Yen"), ("CHF", "CHF", "Swiss Franc")]
        for (code, symbol, name) in expected {
            let currency = try #require(Currency.lookup(code))
            #expect(currency.symbol == symbol && currency.name == name, "\(code)")
        }
    }

    @Test func lookupIgnoresLetterCase() {
        #expect(Currency.lookup("usd")?.code == "USD")
        #expect(Currency.lookup("Eur")?.symbol == "€")
        #expect(Currency.lookup("XYZ") == nil)
        #expect(Currency.lookup("") == nil)
        #expect(Currency.lookup("uſd") == nil)
    }

    @Test(arguments: [
        ("en_US", "USD"), ("en-GB", "GBP"), ("de_CH", "CHF"), ("ja_JP", "JPY"), ("zh_CN", "CNY"),
        ("fr_FR.UTF-8", "EUR"), ("de_DE@euro", "EUR"), ("zh-Hans-CN", "CNY"), ("es_mx", "MXN"), ("ar_BH", "BHD"),
        ("fr_CI", "XOF"), ("de_DE", "EUR"), ("bg_BG", "EUR"), ("en_IN", "INR"), ("dz_BT", "BTN"), ("es_PA", "PAB"),
        ("ar_PS", "ILS"), ("ht_HT", "HTG"), ("en_ZW", "ZWG"), ("de_LI", "CHF"), ("sq_XK", "EUR"),
    ])
    func localeRegionChoosesTheCurrency(_ locale: String, _ code: String) {
        #expect(Currency.forLocale(locale)?.code == code)
    }

    @Test(arguments: ["en", "C", "POSIX", "", "en_AQ", "en_001", "_", "en-Latn"])
    func localesWithoutAKnownRegionHaveNoCurrency(_ locale: String) {
        #expect(Currency.forLocale(locale) == nil)
    }

    @Test func formatsWithTheCurrencysDecimalPlaces() throws {
        #expect(try #require(Currency.lookup("USD")).format(1512) == "15.12")
        #expect(try #require(Currency.lookup("JPY")).format(1500) == "1500")
        #expect(try #require(Currency.lookup("BHD")).format(1500) == "1.500")
    }

    @Test func parsesAmountsInMinorUnits() throws {
        let usd = try #require(Currency.lookup("USD"))
        let jpy = try #require(Currency.lookup("JPY"))
        let bhd = try #require(Currency.lookup("BHD"))
        #expect(try usd.parseAmount("84") == 8400)
        #expect(try usd.parseAmount("84.5") == 8450)
        #expect(try jpy.parseAmount("1500") == 1500)
        #expect(try bhd.parseAmount("1.5") == 1500)
        #expect(try bhd.parseAmount("1.234") == 1234)
        #expect(throws: DecimalTextError.tooManyFractionDigits(found: 3, allowed: 2)) { try usd.parseAmount("1.234") }
        #expect(throws: DecimalTextError.tooManyFractionDigits(found: 1, allowed: 0)) { try jpy.parseAmount("1.5") }
        #expect(throws: DecimalTextError.tooManyFractionDigits(found: 4, allowed: 3)) { try bhd.parseAmount("1.2345") }
        #expect(try usd.parseAmount("999999999999.99") == usd.largestAmount)
    }

    @Test func totalsStopAtTheLargestAmount() throws {
        let usd = try #require(Currency.lookup("USD"))
        #expect(usd.total([100, 250]) == 350)
        #expect(usd.total([]) == 0)
        #expect(usd.total([usd.largestAmount, 0]) == usd.largestAmount)
        #expect(usd.total([usd.largestAmount, 1]) == nil)
    }
}
