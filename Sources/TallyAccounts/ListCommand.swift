import Foundation
import GRDB
import TallyProtocol

/// `accounts.list`: the owner's accounts in the order they were created, a page at a time.
enum ListCommand {
    static let defaultLimit = 50
    static let largestLimit = 100

    static func run(_ args: Arguments, _ context: RequestContext, _ store: AccountStore) throws -> AccountPage {
        try args.allowOnly(["owner", "limit", "cursor"])
        let owner = try Owner.read(args)
        let limit = try args.optionalInteger("limit", in: 1...largestLimit) ?? defaultLimit
        let after = try args.optionalString("cursor").map { cursor throws(TallyError) in
            try ListCursor.afterID(cursor, field: args.field("cursor"))
        } ?? 0
        let rows = try store.database.read { db in
            try AccountRecord
                .filter(AccountRecord.Columns.owner == owner && AccountRecord.Columns.id > after)
                .order(AccountRecord.Columns.id)
                .limit(limit + 1)
                .fetchAll(db)
        }
        let page = rows.prefix(limit)
        return AccountPage(
            accounts: try page.map { try $0.result() },
            nextCursor: rows.count > limit ? page.last?.id.map(ListCursor.make) : nil)
    }
}

struct AccountPage: Encodable, Sendable {
    let accounts: [AccountResult]
    /// Absent on the last page.
    let nextCursor: String?

    enum CodingKeys: String, CodingKey {
        case accounts
        case nextCursor = "next_cursor"
    }
}

/// The opaque `cursor` of `accounts.list`: where the previous page ended. Ids grow in commit
/// order, so paging by id is stable: an account created meanwhile appears on a later page, and a
/// deleted one simply drops out, without repeating or skipping the others.
enum ListCursor {
    private static let prefix = "after:"

    static func make(afterID id: Int64) -> String {
        Data((prefix + String(id)).utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func afterID(_ cursor: String, field: String) throws(TallyError) -> Int64 {
        var base64 = cursor.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard cursor.utf8.count <= 64, let data = Data(base64Encoded: base64),
            let text = String(data: data, encoding: .utf8), text.hasPrefix(prefix),
            let id = Int64(text.dropFirst(prefix.count)), id >= 0
        else {
            throw .invalidArgument(
                "cursor is not one accounts.list gave out; pass next_cursor from the previous page unchanged, or leave cursor out for the first page",
                field: field)
        }
        return id
    }
}
