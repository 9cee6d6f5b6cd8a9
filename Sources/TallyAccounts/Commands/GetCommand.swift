import TallyProtocol

/// `accounts.get`: one of the owner's accounts.
enum GetCommand {
    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: AccountStore) throws -> AccountResult {
        let owner = caller.userID
        try args.allowOnly(["id"])
        let id = try args.id("id", of: "one of your accounts")
        return try store.read { session in try AccountRecord.find(session, owner: owner, id: id).result() }
    }
}
