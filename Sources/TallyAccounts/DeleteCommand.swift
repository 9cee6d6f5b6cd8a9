import TallyProtocol
import TallyStorage

/// `accounts.delete`: removes one of the owner's accounts and returns it as it was. Deleting the
/// default account leaves the owner without one; no other account is promoted.
enum DeleteCommand {
    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: AccountStore) throws -> StoredResult {
        let owner = caller.userID
        try args.allowOnly(["id"])
        let id = try args.id("id", of: "one of your accounts")
        return try store.change(args, context, owner: owner) { session, _ in
            let account = try AccountRecord.find(session, owner: owner, id: id)
            try account.delete(session)
            return account
        }
    }
}
