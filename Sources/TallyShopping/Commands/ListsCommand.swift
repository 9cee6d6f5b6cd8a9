import TallyProtocol

/// `shopping.lists`: the owner's lists (optionally only templates or only shopping lists) in the
/// order they were created, a page at a time, each with its total but without its items.
enum ListsCommand {
    static let pageSize = PageSize(default: 50, largest: 100)

    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: ShoppingStore) throws -> ListPage {
        let owner = caller.userID
        try args.allowOnly(["kind", "limit", "cursor"])
        let kind = try Fields.kind(args, required: false)
        let (limit, after) = try listCursor.page(args, size: pageSize)
        return try store.read { session in
            let rows = try ListRecord.page(session, owner: owner, kind: kind, after: after, limit: limit + 1)
            return ListPage(lists: try rows.prefix(limit).map(ListSummary.init), nextCursor: listCursor.next(rows.map(\.id), limit: limit))
        }
    }
}

struct ListPage: Encodable, Sendable {
    let lists: [ListSummary]
    /// Absent on the last page.
    let nextCursor: String?
}
