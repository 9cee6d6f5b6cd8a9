import TallyProtocol

/// A country that uses a currency: its region code and its name in the request's language.
public struct CountryName: Encodable, Sendable, Equatable {
    public let code: String
    public let name: String
}

/// A currency as a search lists it, and as `currency.default_for_locale` gives it.
public struct CurrencySummary: Encodable, Sendable, Equatable {
    public let code: String
    /// ISO 4217's three digits (`"978"`); nil (JSON null) for a retired currency.
    @NullWhenAbsent public var numeric: String?
    /// The name in the request's language, English when the data has none in it.
    public let name: String
    public let symbol: String
    public let minorUnits: Int
    public let countries: [CountryName]
    public let retired: Bool

}

/// Everything the data holds about one currency: `currency.get`.
/// The summary's fields beside the rest, in one object; what the data lacks is `null`.
public struct CurrencyDetail: Encodable, Sendable, Equatable {
    @Inlined public var summary: CurrencySummary
    public let narrowSymbol: String
    public let symbols: [String]
    /// Every name, by language (`en` always; `ja`, `zh` when the data has them).
    public let names: [String: String]
    @NullWhenAbsent public var isoName: String?
    @NullWhenAbsent public var isoMinorUnits: Int?
    @NullWhenAbsent public var cldrMinorUnits: Int?
    /// The smallest cash amount when coarser than the minor unit (`"0.05"` for CHF), or nil.
    @NullWhenAbsent public var cashRounding: String?
}

/// One page of `currency.search`.
public struct SearchPage: Encodable, Sendable, Equatable {
    public let currencies: [CurrencySummary]
    /// How many currencies match in all, over every page.
    public let total: Int
    /// Pass as `cursor` for the next page; absent on the last page.
    public let nextCursor: String?
}

/// `currency.default_for_locale`.
public struct LocaleDefault: Encodable, Sendable, Equatable {
    public let locale: String
    public let region: String
    public let currency: CurrencySummary
}

/// `currency.status`: whether the data is ready, or how far its loading has got.
public struct CurrencyStatus: Encodable, Sendable, Equatable {
    public enum State: String, Encodable, Sendable {
        /// No data set is active yet: searches are `unavailable`.
        case loading
        /// A data set is active and answers every query.
        case ready
    }

    /// A load in progress.
    public struct Progress: Encodable, Sendable, Equatable {
        public let loaded: Int
        public let total: Int
        public let dataVersion: String
        public let source: CurrencySource
    }

    public let state: State
    /// `ready`: how many currencies the active set has, retired ones included.
    public let count: Int?
    /// `ready`: the active set's data version.
    public let dataVersion: String?
    /// `ready`: where the active set came from.
    public let source: CurrencySource?
    /// `loading`: currencies loaded so far, and how many there are.
    public let loaded: Int?
    public let total: Int?
    /// `ready`, while a new set is loading beside the active one.
    public let reload: Progress?
}
