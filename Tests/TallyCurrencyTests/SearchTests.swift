import Foundation
import TallyMoney
import TallyProtocol
@testable import TallyCurrency
import Testing

@Suite struct SearchTests {
    // MARK: Ranking

    /// One currency per rank, named so that each matches "xyz" in exactly one way.
    private func rankingStore() throws -> CurrencyStore {
        try makeStore(loading: sampleData(currencies: [
            entry("AAA", name: "Plain", symbols: ["abcxyz"]),  // substring (a symbol)
            entry("BBB", name: "Big Xyz"),  // word prefix
            entry("CCC", name: "Xyzzy Dollar"),  // prefix
            entry("DDD", name: "Other", symbol: "xyz"),  // exact symbol
            entry("XYZ", name: "Zed"),  // exact code
            entry("EEE", name: "Xyz Too"),  // prefix, tied with CCC: by code
            entry("FFF", name: "Nothing"),
        ]), source: .file)
    }

    @Test func exactCodeThenExactSymbolThenPrefixThenWordPrefixThenSubstring() throws {
        let result = try run(rankingStore(), "currency.search", ["query": "xyz"])
        #expect(codes(result) == ["XYZ", "DDD", "CCC", "EEE", "BBB", "AAA"])
        #expect(result["total"] == 6)
    }

    @Test func rankingIsTheSameWhateverTheCaseAccentsOrWidth() throws {
        let store = try rankingStore()
        for query in ["XYZ", "Xyz", "ｘｙｚ", " xyz "] {
            #expect(codes(try run(store, "currency.search", ["query": .string(query)])) == ["XYZ", "DDD", "CCC", "EEE", "BBB", "AAA"])
        }
    }

    @Test func symbolsOfTheRealData() throws {
        let store = try makeStore()
        #expect(codes(try run(store, "currency.search", ["query": "€"])).first == "EUR")
        #expect(codes(try run(store, "currency.search", ["query": "Fr"])).first == "CHF")
        #expect(Array(codes(try run(store, "currency.search", ["query": "kr"])).prefix(4)) == ["DKK", "ISK", "NOK", "SEK"])
        #expect(Array(codes(try run(store, "currency.search", ["query": "¥"])).prefix(2)) == ["CNY", "JPY"])
        #expect(Array(codes(try run(store, "currency.search", ["query": "￥"])).prefix(2)) == ["CNY", "JPY"])
        // Many currencies write "$": USD among the exact symbols, before "US$" and other substrings.
        let dollars = try run(store, "currency.search", ["query": "$", "limit": 100])
        #expect(codes(dollars).contains("USD"))
    }

    @Test(arguments: ["yen", "Yen", "YEN", "ｙｅｎ", " yen"])
    func yenInAnyCaseOrWidthFindsJPYFirst(query: String) throws {
        let result = try run(try makeStore(), "currency.search", ["query": .string(query)])
        #expect(codes(result).first == "JPY")
    }

    @Test(arguments: ["euro", "Euro", "EURO", "ÉURO", "éuro"])
    func euroWithOrWithoutAccentsFindsEURFirst(query: String) throws {
        #expect(codes(try run(try makeStore(), "currency.search", ["query": .string(query)])).first == "EUR")
    }

    @Test func codesFindTheirCurrencyFirst() throws {
        let store = try makeStore()
        #expect(codes(try run(store, "currency.search", ["query": "usd"])).first == "USD")
        #expect(codes(try run(store, "currency.search", ["query": "CHF"])).first == "CHF")
    }

    @Test func countryNamesFindTheirCurrencies() throws {
        let store = try makeStore()
        #expect(codes(try run(store, "currency.search", ["query": "switzerland"])).contains("CHF"))
        #expect(codes(try run(store, "currency.search", ["query": "japan"])).first == "JPY")
        // ISO's English name is a name too: "Pound Sterling".
        #expect(codes(try run(store, "currency.search", ["query": "sterling"])) == ["GBP"])
    }

    // MARK: Languages

    @Test func japaneseNamesInAJapaneseRequest() throws {
        let store = try makeStore()
        let result = try run(store, "currency.search", ["query": "スイス"], locale: "ja_JP")
        #expect(codes(result).first == "CHF")
        let chf = try #require(result["currencies"]?.arrayValue?.first)
        #expect(chf["name"] == "スイス フラン")
        #expect(chf["countries"] == [["code": "CH", "name": "スイス"], ["code": "LI", "name": "リヒテンシュタイン"]])
        // English names still match in a Japanese request, and the names come back in Japanese.
        let swiss = try run(store, "currency.search", ["query": "swiss"], locale: "ja_JP")
        #expect(swiss["currencies"]?.arrayValue?.first?["name"] == "スイス フラン")
        // Half-width katakana folds to the full-width names.
        #expect(codes(try run(store, "currency.search", ["query": "ｽｲｽ"], locale: "ja_JP")).first == "CHF")
    }

    @Test func chineseNamesInAChineseRequest() throws {
        let store = try makeStore()
        let result = try run(store, "currency.search", ["query": "瑞士"], locale: "zh_CN")
        #expect(codes(result).first == "CHF")
        #expect(result["currencies"]?.arrayValue?.first?["name"] == "瑞士法郎")
        #expect(codes(try run(store, "currency.search", ["query": "日元"], locale: "zh-Hans-CN")) == ["JPY"])
    }

    @Test func otherLanguagesNamesDoNotMatch() throws {
        let store = try makeStore()
        #expect(codes(try run(store, "currency.search", ["query": "スイス"], locale: "en_US")).isEmpty)
        #expect(codes(try run(store, "currency.search", ["query": "スイス"], locale: "zh_CN")).isEmpty)
        // A language without names is English.
        let french = try run(store, "currency.search", ["query": "swiss"], locale: "fr_CH")
        #expect(french["currencies"]?.arrayValue?.first?["name"] == "Swiss Franc")
    }

    // MARK: Paging

    @Test func pagesCoverEveryActiveCurrencyOnceInCodeOrder() throws {
        let store = try makeStore()
        let active = CurrencyData.embedded.active.map(\.code).sorted()
        var seen: [String] = []
        var cursor: String?
        var pages = 0
        repeat {
            var args: [String: JSONValue] = ["limit": 37]
            if let cursor { args["cursor"] = .string(cursor) }
            let result = try run(store, "currency.search", .object(args))
            #expect(result["total"] == .integer(Int64(active.count)))
            seen += codes(result)
            cursor = result["next_cursor"]?.stringValue
            pages += 1
        } while cursor != nil && pages < 100
        #expect(seen == active)
        #expect(pages == (active.count + 36) / 37)
    }

    @Test func theDefaultPageIsTwentyAndTheLastPageHasNoCursor() throws {
        let store = try makeStore()
        let first = try run(store, "currency.search", [:])
        #expect(codes(first).count == 20)
        #expect(first["next_cursor"]?.stringValue != nil)
        let small = try run(store, "currency.search", ["query": "kr", "limit": 100])
        #expect(small["next_cursor"] == nil)
    }

    @Test func aCursorPagesARankedSearch() throws {
        let store = try makeStore()
        let all = codes(try run(store, "currency.search", ["query": "fr", "limit": 100]))
        let first = try run(store, "currency.search", ["query": "fr", "limit": 3])
        let cursor = try #require(first["next_cursor"]?.stringValue)
        let second = try run(store, "currency.search", ["query": "FR", "limit": 100, "cursor": .string(cursor)])
        #expect(codes(first) + codes(second) == all)
    }

    @Test func aCursorFromAnotherSearchOrMadeUpIsRefused() throws {
        let store = try makeStore()
        let first = try run(store, "currency.search", ["query": "fr", "limit": 3])
        let cursor = try #require(first["next_cursor"]?.stringValue)
        let other = runError(store, "currency.search", ["query": "kr", "cursor": .string(cursor)])
        #expect(other?.code == .invalidArgument)
        #expect(other?.field == "args.cursor")
        #expect(other?.message.contains("different search") == true)
        let retired = runError(store, "currency.search", ["query": "fr", "include_retired": true, "cursor": .string(cursor)])
        #expect(retired?.field == "args.cursor")
        let language = runError(store, "currency.search", ["query": "fr", "cursor": .string(cursor)], locale: "ja_JP")
        #expect(language?.field == "args.cursor")
        let garbage = runError(store, "currency.search", ["cursor": "not-a-cursor"])
        #expect(garbage?.code == .invalidArgument)
        #expect(garbage?.message.contains("next_cursor") == true)
    }

    // MARK: Retired currencies

    @Test func retiredCurrenciesOnlyWhenAskedFor() throws {
        let store = try makeStore()
        #expect(codes(try run(store, "currency.search", ["query": "german mark"])).isEmpty)
        let withRetired = try run(store, "currency.search", ["query": "german mark", "include_retired": true])
        let mark = try #require(withRetired["currencies"]?.arrayValue?.first)
        #expect(mark["code"] == "DEM")
        #expect(mark["retired"] == true)
        #expect(mark["numeric"] == .null)
        #expect(mark["countries"] == [])

        let everything = try run(store, "currency.search", ["include_retired": true, "limit": 1])
        #expect(everything["total"] == .integer(Int64(CurrencyData.embedded.currencies.count)))
        let active = try run(store, "currency.search", ["limit": 1])
        #expect(active["total"] == .integer(Int64(CurrencyData.embedded.active.count)))
    }

    // MARK: Arguments

    @Test func argumentsAreChecked() throws {
        let store = try makeStore()
        #expect(runError(store, "currency.search", ["limit": 0])?.field == "args.limit")
        #expect(runError(store, "currency.search", ["limit": 101])?.field == "args.limit")
        #expect(runError(store, "currency.search", ["query": 5])?.field == "args.query")
        #expect(runError(store, "currency.search", ["include_retired": "yes"])?.field == "args.include_retired")
        #expect(runError(store, "currency.search", ["query": .string(String(repeating: "a", count: 101))])?.field == "args.query")
        let unknown = runError(store, "currency.search", ["q": "yen"])
        #expect(unknown?.field == "args.q")
        #expect(unknown?.message == "unknown field 'q'; args accepts cursor, include_retired, limit, query")
    }

    @Test func aQueryThatMatchesNothingIsAnEmptyPage() throws {
        let result = try run(try makeStore(), "currency.search", ["query": "zzzzqqq"])
        #expect(result == ["currencies": [], "total": 0])
    }
}
