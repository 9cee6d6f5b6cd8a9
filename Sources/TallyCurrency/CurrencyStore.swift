import Foundation
import TallyProtocol
import TallyStorage

/// The currency service's data (`currency.sqlite` by default), and every query on it.
///
/// Each query runs in one read transaction: it reads which generation is active and then only
/// that generation's rows, all from one snapshot, so a load switching sets meanwhile is invisible
/// until the next query.
///
/// Why the engine itself and not a `ServiceStore`: the currency service records no events and
/// takes no keyed changes (its one writer, `CurrencyLoader`, keeps its own claim protocol), so a
/// `ServiceStore` would only add an outbox and an idempotency table that stay empty forever.
public final class CurrencyStore: Sendable {
    public let engine: any StorageEngine

    /// Opens the currency data on `engine` and brings its schema up to date.
    public init(engine: any StorageEngine) throws {
        self.engine = engine
        try engine.migrate(CurrencySchema.migrations)
    }

    // MARK: Status

    public func status() throws -> CurrencyStatus {
        try engine.read { session in
            let state = try LoadState.read(session)
            guard let active = state.active else {
                return CurrencyStatus(
                    state: .loading, count: nil, dataVersion: nil, source: nil,
                    loaded: state.claim?.loaded ?? 0, total: state.claim?.total ?? 0, reload: nil)
            }
            return CurrencyStatus(
                state: .ready, count: active.count, dataVersion: active.version, source: active.source, loaded: nil,
                total: nil,
                reload: state.claim.map {
                    CurrencyStatus.Progress(loaded: $0.loaded, total: $0.total, dataVersion: $0.version, source: $0.source)
                })
        }
    }

    /// Runs `body` on the active set, or answers `unavailable` while there is none.
    func reading<T>(_ body: (any SQLSession, LoadState.Active) throws -> T) throws -> T {
        try engine.read { session in
            let state = try LoadState.read(session)
            guard let active = state.active else {
                if let claim = state.claim {
                    throw TallyError(
                        .unavailable,
                        "the currency data is still loading (\(claim.loaded) of \(claim.total) currencies); retry shortly")
                }
                throw TallyError(.unavailable, "the currency data is not loaded yet; retry shortly")
            }
            return try body(session, active)
        }
    }

    // MARK: Search

    /// A page of the currencies matching `query`, best first (see `MatchRank`), ties by code.
    /// - Parameters:
    ///   - query: as typed; folded here. Empty (or only white space) lists every currency by code.
    ///   - after: the previous page's cursor, already checked against this search's fingerprint.
    func search(
        query: String, language: NameLanguage, includeRetired: Bool, after: SearchCursor?, limit: Int
    ) throws -> (page: [CurrencySummary], total: Int, last: (MatchRank, String)?, more: Bool) {
        let folded = SearchText.fold(query)
        return try reading { session, active in
            var best: [String: MatchRank] = [:]
            let current: SQL = includeRetired ? "" : " AND NOT c.retired"
            if folded.isEmpty {
                let codes = try session.fetchValues(
                    "SELECT c.code FROM currency c WHERE c.generation = \(active.generation)\(current)", as: String.self)
                for code in codes { best[code] = .prefix }
            } else {
                let rows = try session.fetchAll("""
                    SELECT t.code, t.kind, t.term FROM currency_term t
                    JOIN currency c ON c.generation = t.generation AND c.code = t.code
                    WHERE t.generation = \(active.generation) AND t.language IN ('', 'en', \(language.rawValue))
                        AND \(SQL.contains("t.term", folded))\(current)
                    """)
                for row in rows {
                    guard let kind = SearchTerm.Kind(rawValue: try row["kind"]),
                        let rank = MatchRank(term: try row["term"], kind: kind, query: folded)
                    else { continue }
                    let code: String = try row["code"]
                    if best[code].map({ rank < $0 }) ?? true { best[code] = rank }
                }
            }
            let ordered = best.map { (rank: $0.value, code: $0.key) }
                .sorted { ($0.rank.rawValue, $0.code) < ($1.rank.rawValue, $1.code) }
            let remaining = after.map { cursor in ordered.filter { cursor.precedes(rank: $0.rank, code: $0.code) } } ?? ordered
            let page = Array(remaining.prefix(limit))
            let summaries = try summaries(session, generation: active.generation, codes: page.map(\.code), language: language)
            return (summaries, ordered.count, page.last.map { ($0.rank, $0.code) }, remaining.count > page.count)
        }
    }

    // MARK: Lookups

    /// The currency with `code` (upper-case), retired or not; nil when the active set has none.
    func currency(code: String, language: NameLanguage) throws -> CurrencyDetail? {
        try reading { session, active in
            guard let row = try StoredCurrency.fetch(session, generation: active.generation, codes: [code]).first else { return nil }
            let names = try territoryNames(session, generation: active.generation, regions: row.countries, language: language)
            return row.detail(language: language, countryNames: names)
        }
    }

    /// The default currency of `region` (upper-case), as the active set has it.
    func defaultCurrency(region: String, language: NameLanguage) throws -> CurrencySummary? {
        try reading { session, active in
            guard let code = try session.fetchValue(
                "SELECT code FROM region_currency WHERE generation = \(active.generation) AND region = \(region)", as: String.self)
            else { return nil }
            return try summaries(session, generation: active.generation, codes: [code], language: language).first
        }
    }

    /// Summaries of `codes`, in that order.
    private func summaries(_ session: any SQLSession, generation: Int64, codes: [String], language: NameLanguage) throws -> [CurrencySummary] {
        let rows = try StoredCurrency.fetch(session, generation: generation, codes: codes)
        let names = try territoryNames(session, generation: generation, regions: rows.flatMap(\.countries), language: language)
        let byCode = Dictionary(uniqueKeysWithValues: rows.map { ($0.code, $0) })
        return codes.compactMap { byCode[$0]?.summary(language: language, countryNames: names) }
    }

    /// The names of `regions` in `language` (English when missing), by region code.
    private func territoryNames(_ session: any SQLSession, generation: Int64, regions: [String], language: NameLanguage) throws -> [String: String] {
        let unique = Array(Set(regions))
        guard !unique.isEmpty else { return [:] }
        let rows = try session.fetchAll(
            "SELECT region, names FROM territory WHERE generation = \(generation) AND region IN (\(list: unique))")
        var result: [String: String] = [:]
        for row in rows {
            let names = try StoredCurrency.decode([String: String].self, try row["names"])
            result[try row["region"]] = names[language.rawValue] ?? names[NameLanguage.english.rawValue]
        }
        return result
    }
}

/// A row of the `currency` table.
struct StoredCurrency {
    var code: String
    var numeric: String?
    var minorUnits: Int
    var isoMinorUnits: Int?
    var cldrMinorUnits: Int?
    var cashRounding: String?
    var symbol: String
    var narrowSymbol: String
    var symbols: [String]
    var names: [String: String]
    var isoName: String?
    var countries: [String]
    var retired: Bool

    static func fetch(_ session: any SQLSession, generation: Int64, codes: [String]) throws -> [StoredCurrency] {
        guard !codes.isEmpty else { return [] }
        return try session.fetchAll("SELECT * FROM currency WHERE generation = \(generation) AND code IN (\(list: codes))").map { row in
            StoredCurrency(
                code: try row["code"], numeric: try row["numeric"], minorUnits: try row["minor_units"],
                isoMinorUnits: try row["iso_minor_units"], cldrMinorUnits: try row["cldr_minor_units"],
                cashRounding: try row["cash_rounding"], symbol: try row["symbol"], narrowSymbol: try row["narrow_symbol"],
                symbols: try decode([String].self, try row["symbols"]), names: try decode([String: String].self, try row["names"]),
                isoName: try row["iso_name"], countries: try decode([String].self, try row["countries"]), retired: try row["retired"])
        }
    }

    static func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        do {
            return try TallyJSON.decode(type, from: Data(text.utf8))
        } catch {
            throw CurrencyStorageError("a JSON column of the currency database does not decode as \(type): \(error)")
        }
    }

    func name(in language: NameLanguage) -> String {
        names[language.rawValue] ?? names[NameLanguage.english.rawValue] ?? code
    }

    func summary(language: NameLanguage, countryNames: [String: String]) -> CurrencySummary {
        CurrencySummary(
            code: code, numeric: numeric, name: name(in: language), symbol: symbol, minorUnits: minorUnits,
            countries: countries.map { CountryName(code: $0, name: countryNames[$0] ?? $0) }, retired: retired)
    }

    func detail(language: NameLanguage, countryNames: [String: String]) -> CurrencyDetail {
        CurrencyDetail(
            summary: summary(language: language, countryNames: countryNames), narrowSymbol: narrowSymbol,
            symbols: symbols, names: names, isoName: isoName, isoMinorUnits: isoMinorUnits,
            cldrMinorUnits: cldrMinorUnits, cashRounding: cashRounding)
    }
}
