import Foundation
import TallyMoney
import TallyProtocol
@testable import TallyCurrency
import Testing

@Suite struct GetTests {
    @Test func everythingAboutOneCurrency() throws {
        let store = try makeStore()
        let chf = try run(store, "currency.get", ["code": "CHF"])
        #expect(chf["code"] == "CHF")
        #expect(chf["numeric"] == "756")
        #expect(chf["name"] == "Swiss Franc")
        #expect(chf["minor_units"] == 2)
        #expect(chf["cash_rounding"] == "0.05")
        #expect(chf["retired"] == false)
        #expect(chf["countries"] == [["code": "CH", "name": "Switzerland"], ["code": "LI", "name": "Liechtenstein"]])
        #expect(chf["symbols"]?.arrayValue?.contains("Fr.") == true)
        #expect(chf["names"]?["ja"] == "スイス フラン")
        #expect(chf["iso_name"] == "Swiss Franc")
        // Every field is present, null when the data has nothing.
        #expect(chf.objectValue?.keys.sorted() == [
            "cash_rounding", "cldr_minor_units", "code", "countries", "iso_minor_units", "iso_name", "minor_units",
            "name", "names", "narrow_symbol", "numeric", "retired", "symbol", "symbols",
        ])
    }

    @Test func codesInAnyCaseAndNamesInTheRequestsLanguage() throws {
        let store = try makeStore()
        #expect(try run(store, "currency.get", ["code": "jpy"])["code"] == "JPY")
        let yen = try run(store, "currency.get", ["code": "JPY"], locale: "ja_JP")
        #expect(yen["name"] == "日本円")
        #expect(yen["countries"] == [["code": "JP", "name": "日本"]])
        #expect(try run(store, "currency.get", ["code": "JPY"], locale: "zh_CN")["name"] == "日元")
    }

    @Test func aRetiredCodeIsFoundAndSaysSo() throws {
        let mark = try run(try makeStore(), "currency.get", ["code": "DEM"])
        #expect(mark["retired"] == true)
        #expect(mark["numeric"] == .null)
        #expect(mark["iso_minor_units"] == .null)
        #expect(mark["name"] == "German Mark")
    }

    @Test func unknownCodesAreNotFound() throws {
        let error = runError(try makeStore(), "currency.get", ["code": "XYZ"])
        #expect(error?.code == .notFound)
        #expect(error?.field == "args.code")
        #expect(error?.message == "there is no currency with the code XYZ; currency.search finds currencies by name, country or symbol")
    }

    @Test func malformedCodesAreInvalid() throws {
        let store = try makeStore()
        for bad: JSONValue in ["EURO", "E1R", "", "ÉUR", 978] {
            let error = runError(store, "currency.get", ["code": bad])
            #expect(error?.code == .invalidArgument, "\(bad)")
            #expect(error?.field == "args.code")
        }
        #expect(runError(store, "currency.get", [:])?.message == "code is required (an ISO 4217 code such as \"EUR\")")
    }
}

@Suite struct DefaultForLocaleTests {
    @Test(arguments: [("ja_JP", "JPY", "JP"), ("en_GB", "GBP", "GB"), ("de_CH", "CHF", "CH"), ("zh_CN", "CNY", "CN"),
                      ("en_US", "USD", "US"), ("de-CH", "CHF", "CH"), ("zh-Hans-CN", "CNY", "CN"), ("fr_FR.UTF-8", "EUR", "FR")])
    func theRegionsCurrency(locale: String, code: String, region: String) throws {
        let result = try run(try makeStore(), "currency.default_for_locale", ["locale": .string(locale)])
        #expect(result["currency"]?["code"] == .string(code))
        #expect(result["region"] == .string(region))
        #expect(result["locale"] == .string(locale))
    }

    @Test func theEnvelopesLocaleWhenTheArgIsMissing() throws {
        let store = try makeStore()
        let result = try run(store, "currency.default_for_locale", [:], locale: "ja_JP")
        #expect(result["currency"]?["code"] == "JPY")
        #expect(result["currency"]?["name"] == "日本円")
        // The arg wins; names stay in the request's language.
        let swiss = try run(store, "currency.default_for_locale", ["locale": "de_CH"], locale: "ja_JP")
        #expect(swiss["currency"]?["code"] == "CHF")
        #expect(swiss["currency"]?["name"] == "スイス フラン")
    }

    @Test func aLocaleWithoutARegionIsNotFound() throws {
        let store = try makeStore()
        let error = runError(store, "currency.default_for_locale", ["locale": "en"])
        #expect(error?.code == .notFound)
        #expect(error?.field == "args.locale")
        #expect(error?.message == "locale 'en' names no region, so it has no default currency; give one with a region, such as \"en_US\" or \"de-CH\"")
        // From the envelope, the envelope's field is to blame.
        #expect(runError(store, "currency.default_for_locale", [:], locale: "ja")?.field == "locale")
    }

    @Test func anUnknownRegionIsNotFound() throws {
        let error = runError(try makeStore(), "currency.default_for_locale", ["locale": "en_ZZ"])
        #expect(error?.code == .notFound)
        #expect(error?.message == "no currency is known for region ZZ (of locale 'en_ZZ')")
    }

    @Test func noLocaleAtAllIsInvalid() throws {
        let error = runError(try makeStore(), "currency.default_for_locale", [:])
        #expect(error?.code == .invalidArgument)
        #expect(error?.field == "args.locale")
    }
}
