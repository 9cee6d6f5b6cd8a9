import TallyProtocol

/// `currency.search`: the currency picker's search box. Finds currencies by country name,
/// currency name (in the request's language and in English), code and symbol, ignoring case,
/// accents and width, best matches first, a page at a time.
enum SearchCommand {
    static let keys: Set<String> = ["query", "limit", "cursor", "include_retired"]
    static let longestQuery = 100
    static let pageSize = PageSize(default: 20, largest: 100)

    static func run(_ store: CurrencyStore, _ args: Arguments, _ context: RequestContext) throws -> SearchPage {
        try args.allowOnly(keys)
        let query = try args.optionalString("query") ?? ""
        guard query.unicodeScalars.count <= longestQuery else {
            throw TallyError.invalidArgument("query must be at most \(longestQuery) characters", field: args.field("query"))
        }
        let limit = try args.limit(pageSize)
        let includeRetired = try args.optionalBool("include_retired") ?? false
        let language = NameLanguage(locale: context.locale)
        let fingerprint = SearchCursor.fingerprint(
            query: SearchText.fold(query), includeRetired: includeRetired, language: language)

        var after: SearchCursor?
        if let text = try args.optionalString("cursor") {
            guard let cursor = SearchCursor(encoded: text) else {
                throw TallyError.invalidArgument(
                    "cursor is not one this service gave out; pass the next_cursor of the previous page, or leave it out to start again",
                    field: args.field("cursor"))
            }
            guard cursor.fingerprint == fingerprint else {
                throw TallyError.invalidArgument(
                    "cursor belongs to a different search; keep query, include_retired and the locale's language as they were for the first page, or leave cursor out to start again",
                    field: args.field("cursor"))
            }
            after = cursor
        }

        let found = try store.search(
            query: query, language: language, includeRetired: includeRetired, after: after, limit: limit)
        let next = found.more ? found.last.map { SearchCursor(rank: $0.0, code: $0.1, fingerprint: fingerprint).encoded } : nil
        return SearchPage(currencies: found.page, total: found.total, nextCursor: next)
    }
}
