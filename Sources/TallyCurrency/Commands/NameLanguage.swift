/// The language currency and country names are given in: the request's, when the data has names
/// in it (English, Japanese, Chinese), and English otherwise.
public enum NameLanguage: String, Sendable, CaseIterable {
    case english = "en"
    case japanese = "ja"
    case chinese = "zh"

    /// The language of a locale identifier (`ja_JP`, `zh-Hans-CN`, `en`, `fr_FR.UTF-8`): its first
    /// subtag, in any letter case. No locale, or a language without names, is English.
    public init(locale: String?) {
        let language = locale.flatMap { $0.split(whereSeparator: { "_-.@".contains($0) }).first }
            .map { $0.lowercased() }
        self = language.flatMap(NameLanguage.init(rawValue:)) ?? .english
    }
}
