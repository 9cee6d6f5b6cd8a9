import TallyProtocol

/// `identity.users`: every user and their roles, for an admin, a page at a time in id order.
enum UsersCommand {
    static let pageSize = PageSize(default: 100, largest: 500)

    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ identity: IdentityResources) throws -> UserPage {
        try args.allowOnly(["after", "limit"])
        let after = try args.optionalInteger("after", in: 0...Int.max) ?? 0
        let limit = try args.limit(pageSize)
        let users = try identity.store.read { try UserRecord.page($0, after: Int64(after), limit: limit + 1) }
        return UserPage(users: users.prefix(limit).map(\.result), more: users.count > limit)
    }
}
