import GRDB
import TallyProtocol

/// `shopping.lists`: the owner's lists (optionally only templates or only shopping lists) in the
/// order they were created, a page at a time, each with its total but without its items.
enum ListsCommand {
    static let defaultLimit = 50
    static let largestLimit = 100

    static func run(_ args: Arguments, _ context: RequestContext, _ store: ShoppingStore) throws -> ListPage {
        try args.allowOnly(["owner", "kind", "limit", "cursor"])
        let owner = try Owner.read(args)
        let kind = try Fields.kind(args, required: false)
        let limit = try args.optionalInteger("limit", in: 1...largestLimit) ?? defaultLimit
        let after = try args.optionalString("cursor").map { cursor throws(TallyError) in
            try listCursor.afterID(cursor, field: args.field("cursor"))
        } ?? 0
        return try store.database.read { db in
            var request = ListRecord.filter(ListRecord.Columns.owner == owner && ListRecord.Columns.id > after)
            if let kind { request = request.filter(ListRecord.Columns.kind == kind.rawValue) }
            let rows = try request.order(ListRecord.Columns.id).limit(limit + 1).fetchAll(db)
            let page = Array(rows.prefix(limit))
            let items = Dictionary(grouping: try ItemRecord.filter(page.compactMap(\.id).contains(ItemRecord.Columns.listID)).fetchAll(db), by: \.listID)
            return ListPage(
                lists: try page.map { try ListSummary($0, items: items[$0.id ?? 0] ?? []) },
                nextCursor: rows.count > limit ? page.last?.id.map(listCursor.make) : nil)
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
