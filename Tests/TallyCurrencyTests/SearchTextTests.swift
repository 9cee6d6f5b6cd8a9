@testable import TallyCurrency
import Testing

@Suite struct SearchTextTests {
    @Test(arguments: [
        ("yen", "yen"), ("Yen", "yen"), ("YEN", "yen"), ("ＹＥＮ", "yen"), ("ÉURO", "euro"), ("Złoty", "zloty"),
        ("Króna", "krona"), ("  Swiss   Franc ", "swiss franc"), ("Côte d’Ivoire", "cote d'ivoire"), ("￥", "¥"),
        ("ﾄﾞﾙ", "ドル"), ("ドル", "ドル"), ("Øre", "ore"), ("Straße", "strasse"), ("São Tomé", "sao tome"),
    ])
    func foldsCaseAccentsAndWidth(text: String, folded: String) {
        #expect(SearchText.fold(text) == folded)
    }

    /// Terms are folded when the data loads and queries when they arrive, so a folded text must
    /// fold to itself. Found by fuzzing (`currency-search`): a combining mark after white space
    /// joined the space the fold wrote, and the next fold dropped both as white space.
    @Test(arguments: ["ma\0\u{0B}\u{07F0}r\u{FFFD}", " \u{07F0}x", "a\t\u{0301}b", "ø\u{07F0}", "Straße  ", "\r\n\u{0345}"])
    func foldingTwiceChangesNothing(text: String) {
        let folded = SearchText.fold(text)
        #expect(SearchText.fold(folded) == folded)
    }

    @Test func japaneseVoicingMarksAreNotAccents() {
        #expect(SearchText.fold("ド") != SearchText.fold("ト"))
    }

    @Test func ranksAQueryAgainstOneTerm() {
        #expect(MatchRank(term: "eur", kind: .code, query: "eur") == .exactCode)
        #expect(MatchRank(term: "kr", kind: .symbol, query: "kr") == .exactSymbol)
        #expect(MatchRank(term: "euro", kind: .name, query: "euro") == .prefix)
        #expect(MatchRank(term: "eur", kind: .symbol, query: "eu") == .prefix)
        #expect(MatchRank(term: "wir euro", kind: .name, query: "euro") == .wordPrefix)
        #expect(MatchRank(term: "congo - kinshasa", kind: .country, query: "kin") == .wordPrefix)
        #expect(MatchRank(term: "svalbard & jan mayen", kind: .country, query: "yen") == .substring)
        #expect(MatchRank(term: "us$", kind: .symbol, query: "$") == .substring)
        #expect(MatchRank(term: "swiss franc", kind: .name, query: "yen") == nil)
    }

    @Test(arguments: [
        ("ja_JP", NameLanguage.japanese), ("ja", .japanese), ("zh-Hans-CN", .chinese), ("zh_TW", .chinese),
        ("en_US", .english), ("de_CH", .english), ("JA-jp", .japanese), ("fr_FR.UTF-8", .english),
    ])
    func namesFollowTheLocalesLanguage(locale: String, language: NameLanguage) {
        #expect(NameLanguage(locale: locale) == language)
    }

    @Test func noLocaleIsEnglish() {
        #expect(NameLanguage(locale: nil) == .english)
    }
}
