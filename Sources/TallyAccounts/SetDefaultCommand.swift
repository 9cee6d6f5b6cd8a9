import TallyProtocol
import TallyStorage

/// `accounts.set_default`: makes one account the owner's default, and no other.
enum SetDefaultCommand {
    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: AccountStore) throws -> StoredResult {
        let owner = caller.userID
        try args.allowOnly(["id"])
        let id = try args.id("id", of: "one of your accounts")
        return try store.change(args, context, owner: owner) { session, now in
            var account = try AccountRecord.find(session, owner: owner, id: id)
            if !account.isDefault {
                try AccountRecord.clearDefault(session, owner: owner, except: id, at: now)
                account.isDefault = true
                account.updatedAt = now
                try account.update(session)
            }
            return account
        }
    }
}
