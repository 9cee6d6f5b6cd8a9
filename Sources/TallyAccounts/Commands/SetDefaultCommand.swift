import TallyProtocol
import TallyStorage

/// `accounts.set_default`: makes one account the owner's default, and no other.
enum SetDefaultCommand {
    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: AccountStore) throws -> StoredResult {
        try store.changeAccount(context, args, owner: caller.userID) { change, account in
            if !account.isDefault {
                try AccountRecord.clearDefault(change.session, owner: caller.userID, except: account.id, at: change.now)
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
