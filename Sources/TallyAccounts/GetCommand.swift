import TallyProtocol

/// `accounts.get`: one of the owner's accounts.
enum GetCommand {
    static func run(_ args: Arguments, _ context: RequestContext, _ store: AccountStore) throws -> AccountResult {
        try args.allowOnly(["owner", "id"])
        let owner = try Owner.read(args)
        let id = try AccountID.read(args)
        return try store.store.read { session in try AccountRecord.find(session, owner: owner, id: id).result() }
    }
}
