import Foundation
import GRDB
import TallyProtocol
import TallyStorage

/// The currency service's database, `<data-dir>/currency.sqlite`, and every query on it.
///
/// Each query runs in one read transaction: it reads which generation is active and then only
/// that generation's rows, all from one snapshot, so a load switching sets meanwhile is invisible
/// until the next query.
public final class CurrencyStore: Sendable {
    public let database: ServiceDatabase

    public init(directory: String, busyTimeout: Duration = .seconds(10)) throws {
        database = try ServiceDatabase(
            directory: directory, name: "currency", busyTimeout: busyTimeout, migrations: CurrencySchema.register)
    }

    // MARK: Status

    public func status() throws -> CurrencyStatus {
        try database.read { db in
            let state = try LoadState.read(db)
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
    func reading<T>(_ body: (Database, LoadState.Active) throws -> T) throws -> T {
        try database.read { db in
            let state = try LoadState.read(db)
            guard let active = state.active else {
                if let claim = state.claim {
                    throw TallyError(
                        .unavailable,
                        "the currency data is still loading (\(claim.loaded) of \(claim.total) currencies); retry shortly")
                }
                throw TallyError(.unavailable, "the currency data is not loaded yet; retry shortly")
            }
            return try body(db, active)
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
        return try reading { db, active in
            var best: [String: MatchRank] = [:]
            if folded.isEmpty {
                let codes = try String.fetchAll(
                    db, sql: "SELECT code FROM currency WHERE generation = ? AND (retired = 0 OR ?)",
                    arguments: [active.generation, includeRetired])
                for code in codes { best[code] = .prefix }
            } else {
                let rows = try Row.fetchCursor(
                    db,
                    sql: """
                        SELECT t.code, t.kind, t.term FROM currency_term t
                        JOIN currency c ON c.generation = t.generation AND c.code = t.code
                        WHERE t.generation = ? AND t.language IN ('', 'en', ?) AND instr(t.term, ?) > 0
                            AND (c.retired = 0 OR ?)
                        """,
                    arguments: [active.generation, language.rawValue, folded, includeRetired])
                while let row = try rows.next() {
                    guard let kind = SearchTerm.Kind(rawValue: row["kind"]),
                        let rank = MatchRank(term: row["term"], kind: kind, query: folded)
                    else { continue }
                    let code: String = row["code"]
                    if best[code].map({ rank < $0 }) ?? true { best[code] = rank }
                }
            }
            let ordered = best.map { (rank: $0.value, code: $0.key) }
                .sorted { ($0.rank.rawValue, $0.code) < ($1.rank.rawValue, $1.code) }
            let remaining = after.map { cursor in ordered.filter { cursor.precedes(rank: $0.rank, code: $0.code) } } ?? ordered
            let page = Array(remaining.prefix(limit))
            let summaries = try summaries(db, generation: active.generation, codes: page.map(\.code), language: language)
            return (summaries, ordered.count, page.last.map { ($0.rank, $0.code) }, remaining.count > page.count)
        }
    }

    // MARK: Lookups

    /// The currency with `code` (upper-case), retired or not; nil when the active set has none.
    func currency(code: String, language: NameLanguage) throws -> CurrencyDetail? {
        try reading { db, active in
            guard let row = try StoredCurrency.fetch(db, generation: active.generation, codes: [code]).first else { return nil }
            let names = try territoryNames(db, generation: active.generation, regions: row.countries, language: language)
            return row.detail(language: language, countryNames: names)
        }
    }

    /// The default currency of `region` (upper-case), as the active set has it.
    func defaultCurrency(region: String, language: NameLanguage) throws -> CurrencySummary? {
        try reading { db, active in
            guard let code = try String.fetchOne(
                db, sql: "SELECT code FROM region_currency WHERE generation = ? AND region = ?",
                arguments: [active.generation, region])
            else { return nil }
            return try summaries(db, generation: active.generation, codes: [code], language: language).first
        }
    }

    /// Summaries of `codes`, in that order.
    private func summaries(_ db: Database, generation: Int64, codes: [String], language: NameLanguage) throws -> [CurrencySummary] {
        let rows = try StoredCurrency.fetch(db, generation: generation, codes: codes)
        let names = try territoryNames(db, generation: generation, regions: rows.flatMap(\.countries), language: language)
        let byCode = Dictionary(uniqueKeysWithValues: rows.map { ($0.code, $0) })
        return codes.compactMap { byCode[$0]?.summary(language: language, countryNames: names) }
    }

    /// The names of `regions` in `language` (English when missing), by region code.
    private func territoryNames(_ db: Database, generation: Int64, regions: [String], language: NameLanguage) throws -> [String: String] {
        let unique = Array(Set(regions))
        guard !unique.isEmpty else { return [:] }
        let placeholders = Array(repeating: "?", count: unique.count).joined(separator: ", ")
        var arguments: [any DatabaseValueConvertible] = [generation]
        arguments.append(contentsOf: unique)
        let rows = try Row.fetchAll(
            db, sql: "SELECT region, names FROM territory WHERE generation = ? AND region IN (\(placeholders))",
            arguments: StatementArguments(arguments))
        var result: [String: String] = [:]
        for row in rows {
            let names = try StoredCurrency.decode([String: String].self, row["names"])
            result[row["region"]] = names[language.rawValue] ?? names[NameLanguage.english.rawValue]
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

    static func fetch(_ db: Database, generation: Int64, codes: [String]) throws -> [StoredCurrency] {
        guard !codes.isEmpty else { return [] }
        let placeholders = Array(repeating: "?", count: codes.count).joined(separator: ", ")
        var arguments: [any DatabaseValueConvertible] = [generation]
        arguments.append(contentsOf: codes)
        return try Row.fetchAll(
            db, sql: "SELECT * FROM currency WHERE generation = ? AND code IN (\(placeholders))",
            arguments: StatementArguments(arguments)
        ).map { row in
            StoredCurrency(
                code: row["code"], numeric: row["numeric"], minorUnits: row["minor_units"],
                isoMinorUnits: row["iso_minor_units"], cldrMinorUnits: row["cldr_minor_units"],
                cashRounding: row["cash_rounding"], symbol: row["symbol"], narrowSymbol: row["narrow_symbol"],
                symbols: try decode([String].self, row["symbols"]), names: try decode([String: String].self, row["names"]),
                isoName: row["iso_name"], countries: try decode([String].self, row["countries"]), retired: row["retired"])
        }
    }

    static func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(text.utf8))
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
