import TallyProtocol
import TallyStorage

/// `accounts.set_default`: makes one account the owner's default, and no other.
enum SetDefaultCommand {
    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: AccountStore) throws -> StoredResult {
        let owner = caller.userID
        try args.allowOnly(["id"])
        let id = try args.id("id", of: "one of your accounts")
        return try store.change(context, args, owner: owner) { change in
            var account = try AccountRecord.find(change.session, owner: owner, id: id)
            if !account.isDefault {
                try AccountRecord.clearDefault(change.session, owner: owner, except: id, at: change.now)
                account.isDefault = true
                account.updatedAt = change.now
                try account.update(change.session)
            }
            let result = try account.result()
            change.record(AccountEvent.defaultChanged(result))
            return result
        }
    }
}
