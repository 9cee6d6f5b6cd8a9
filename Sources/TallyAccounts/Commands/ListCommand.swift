import Foundation
import TallyProtocol
import TallyStorage

/// `accounts.list`: the owner's accounts in the order they were created, a page at a time.
enum ListCommand {
    static let pageSize = PageSize(default: 50, largest: 100)

    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: AccountStore) throws -> AccountPage {
        let owner = caller.userID
        try args.allowOnly(["limit", "cursor"])
        let (limit, after) = try listCursor.page(args, size: pageSize)
        let rows = try store.read { session in try AccountRecord.page(session, owner: owner, after: after, limit: limit + 1) }
        return AccountPage(
            accounts: try rows.prefix(limit).map { try $0.result() }, nextCursor: listCursor.next(rows.map(\.id), limit: limit))
    }
}

struct AccountPage: Encodable, Sendable {
    let accounts: [AccountResult]
    /// Absent on the last page.
    let nextCursor: String?
}

/// The opaque `cursor` of `accounts.list`. Ids grow in commit order, so paging by id is stable: an
/// account created meanwhile appears on a later page, and a deleted one simply drops out.
let listCursor = IDCursor(command: "accounts.list")
