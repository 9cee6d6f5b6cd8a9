import TallyMoney

/// One string a search can find a currency by, folded with `SearchText.fold`.
struct SearchTerm: Hashable, Sendable {
    enum Kind: String, Sendable {
        /// The ISO 4217 code: `eur`.
        case code
        /// A symbol: `€`, `fr.`, `kr`, `us$`.
        case symbol
        /// A name of the currency in one language (CLDR's, and ISO's English name).
        case name
        /// A name of a country that uses it, in one language.
        case country
    }

    var kind: Kind
    /// The names' language (`en`, `ja`, `zh`); empty for codes and symbols, which match in every language.
    var language: String
    var text: String

    /// Every term of a currency: its code, its symbols, its names in every language and the names
    /// of its countries in every language.
    static func terms(of entry: CurrencyData.Entry, territories: [String: [String: String]]) -> Set<SearchTerm> {
        var terms: Set<SearchTerm> = [SearchTerm(kind: .code, language: "", text: SearchText.fold(entry.code))]
        for symbol in [entry.symbol, entry.narrowSymbol] + entry.symbols {
            terms.insert(SearchTerm(kind: .symbol, language: "", text: SearchText.fold(symbol)))
        }
        for (language, name) in entry.names {
            terms.insert(SearchTerm(kind: .name, language: language, text: SearchText.fold(name)))
        }
        if let isoName = entry.isoName {
            terms.insert(SearchTerm(kind: .name, language: NameLanguage.english.rawValue, text: SearchText.fold(isoName)))
        }
        for country in entry.countries {
            for (language, name) in territories[country] ?? [:] {
                terms.insert(SearchTerm(kind: .country, language: language, text: SearchText.fold(name)))
            }
        }
        return terms.filter { !$0.text.isEmpty }
    }
}

/// How well a currency matches a query: the best of its terms' ranks. Lower is better.
enum MatchRank: Int, Sendable, Comparable {
    /// The query is the currency's code: `eur`.
    case exactCode = 0
    /// The query is one of its symbols: `€`, `kr`.
    case exactSymbol = 1
    /// A term starts with the query: `swi` (Swiss Franc, Switzerland), `euro` (Euro).
    case prefix = 2
    /// A word inside a term starts with the query: `franc` (Swiss Franc), `euro` (WIR Euro).
    case wordPrefix = 3
    /// A term contains the query anywhere else: `ranc`, `yen` (Svalbard & Jan Mayen).
    case substring = 4

    static func < (lhs: MatchRank, rhs: MatchRank) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The rank of one term for a folded, non-empty query, or nil when the term does not contain it.
    init?(term: String, kind: SearchTerm.Kind, query: String) {
        if term == query && kind == .code {
            self = .exactCode
        } else if term == query && kind == .symbol {
            self = .exactSymbol
        } else if term.hasPrefix(query) {
            self = .prefix
        } else if let rank = Self.inside(term, query) {
            self = rank
        } else {
            return nil
        }
    }

    /// `.wordPrefix` if a word after the first starts with `query` (a word starts after any
    /// character that is neither a letter nor a digit), else `.substring` if `term` contains it.
    private static func inside(_ term: String, _ query: String) -> MatchRank? {
        var found = false
        var previous: Character?
        var index = term.startIndex
        while index < term.endIndex {
            let character = term[index]
            if let previous, term[index...].hasPrefix(query) {
                if !previous.isLetter && !previous.isNumber { return .wordPrefix }
                found = true
            }
            previous = character
            index = term.index(after: index)
        }
        return found ? .substring : nil
    }
}
