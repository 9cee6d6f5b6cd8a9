import TallyProtocol

/// `shopping.lists`: the owner's lists (optionally only templates or only shopping lists) in the
/// order they were created, a page at a time, each with its total but without its items.
enum ListsCommand {
    static let defaultLimit = 50
    static let largestLimit = 100

    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: ShoppingStore) throws -> ListPage {
        let owner = caller.userID
        try args.allowOnly(["kind", "limit", "cursor"])
        let kind = try Fields.kind(args, required: false)
        let limit = try args.optionalInteger("limit", in: 1...largestLimit) ?? defaultLimit
        let after = try args.optionalString("cursor").map { cursor throws(TallyError) in
            try listCursor.afterID(cursor, field: args.field("cursor"))
        } ?? 0
        return try store.store.read { session in
            let rows = try ListRecord.page(session, owner: owner, kind: kind, after: after, limit: limit + 1)
            let page = Array(rows.prefix(limit))
            return ListPage(
                lists: try page.map(ListSummary.init),
                nextCursor: rows.count > limit ? page.last.map { listCursor.make(afterID: $0.id) } : nil)
        }
    }
}

struct ListPage: Encodable, Sendable {
    let lists: [ListSummary]
    /// Absent on the last page.
    let nextCursor: String?

    enum CodingKeys: String, CodingKey {
        case lists
        case nextCursor = "next_cursor"
    }
}
