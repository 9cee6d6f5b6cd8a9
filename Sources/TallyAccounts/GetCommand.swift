import TallyProtocol

/// `accounts.get`: one of the owner's accounts.
enum GetCommand {
    static func run(_ args: Arguments, _ context: RequestContext, _ store: AccountStore) throws -> AccountResult {
        let owner = try Owner.caller(args, context)
        try args.allowOnly(["id"])
        let id = try AccountID.read(args)
        return try store.store.read { session in try AccountRecord.find(session, owner: owner, id: id).result() }
    }
}
