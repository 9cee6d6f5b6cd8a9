import Foundation
import TallyProtocol
import Testing

@Suite struct StringsTests {
    private let keys = [
        "BUTTON_DONE", "ERRORLABEL_ERROR_TITLE", "ERRORLABEL_NAME_CURRENCY_NOT_EMPTY", "LABEL_CURRENCY", "LABEL_IS_DEFAULT_ACCOUNT",
        "LABEL_IS_DEFAULT_ACCOUNT_DESCRIPTION", "LABEL_LOADING", "LABEL_NAME", "LABEL_STARTING_BALANCE", "MENULABEL_ADD_ACCOUNT",
        "MENULABEL_CURRENCY_PICKER", "TEXTFIELD_NAME_PLACEHOLDER", "TEXTFIELD_STARTING_BALANCE_PLACEHOLDER",
    ]

    @Test func everyLanguageHasEveryKey() throws {
        let harness = try AccountsHarness()
        var seen: [String: [String: JSONValue]] = [:]
        for (locale, language) in [("en_US", "en"), ("ja_JP", "ja"), ("zh-Hans-CN", "zh")] {
            let list = try harness.call("accounts.strings", [:], locale: locale)
            #expect(list["locale"] == .string(language))
            let strings = try #require(list["strings"]?.objectValue)
            #expect(strings.keys.sorted() == keys, "\(language)")
            #expect(strings.values.allSatisfy { ($0.stringValue ?? "").isEmpty == false })
            seen[language] = strings
        }
        #expect(seen["en"]?["MENULABEL_ADD_ACCOUNT"] == "Add Account")
        #expect(seen["ja"]?["MENULABEL_ADD_ACCOUNT"] == "口座を追加")
        #expect(seen["zh"]?["MENULABEL_ADD_ACCOUNT"] == "添加账户")
        #expect(seen["ja"]?["ERRORLABEL_NAME_CURRENCY_NOT_EMPTY"] == "口座名と初期残高の両方を入力してください。")
        #expect(Set(seen.values.map { $0["BUTTON_DONE"] }).count == 3, "translated, not copied")
    }

    @Test func theLocaleArgumentOverridesTheRequestsAndUnknownLanguagesGetEnglish() throws {
        let harness = try AccountsHarness()
        #expect(try harness.call("accounts.strings", ["locale": "ja"], locale: "en_US")["locale"] == "ja")
        #expect(try harness.call("accounts.strings", ["locale": .null], locale: "zh_TW")["locale"] == "zh")
        for locale in ["fr_FR", "de", "x", "EN"] as [String?] + [nil] {
            #expect(try harness.call("accounts.strings", [:], locale: locale)["locale"] == "en", "\(locale ?? "none")")
        }
        #expect(try harness.call("accounts.strings", [:], locale: "JA_jp")["locale"] == "ja")
        #expect(harness.error("accounts.strings", [:], as: nil)?.code == .unauthenticated)
        #expect(harness.error("accounts.strings", ["language": "ja"])?.field == "args.language")
        #expect(harness.error("accounts.strings", ["locale": 5])?.field == "args.locale")
    }
}
