import TallyProtocol
import TallyStorage

/// `accounts.delete`: removes one of the owner's accounts and returns it as it was. Deleting the
/// default account leaves the owner without one; no other account is promoted.
enum DeleteCommand {
    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: AccountStore) throws -> StoredResult {
        try store.changeAccount(context, args, owner: caller.userID) { change, account in
            try account.delete(change.session)
            let result = try account.result()
            change.record(AccountEvent.accountDeleted(result))
            return result
        }
    }
}
