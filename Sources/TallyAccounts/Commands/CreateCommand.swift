import TallyMoney
import TallyProtocol
import TallyStorage

/// `accounts.create`: a new account for an owner, the add-account screen's Done button.
enum CreateCommand {
    static let keys: Set<String> = ["name", "currency", "starting_balance", "is_default"]

    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: AccountStore) throws -> StoredResult {
        let owner = caller.userID
        try args.allowOnly(keys)
        guard let name = try AccountName.read(args) else {
            throw try store.emptyNameOrBalance(field: args.field("name"), locale: context.locale)
        }
        guard let balanceText = try StartingBalance.text(args) else {
            throw try store.emptyNameOrBalance(field: args.field("starting_balance"), locale: context.locale)
        }
        let currency = try args.currency(locale: context.locale)
        let balance = try StartingBalance.parse(balanceText, in: currency, field: args.field("starting_balance"))
        let isDefault = try args.optionalBool("is_default") ?? false

        return try store.change(context, args, owner: owner) { change in
            try AccountRecord.checkNameIsFree(change.session, owner: owner, name: name)
            if isDefault { try AccountRecord.clearDefault(change.session, owner: owner, except: nil, at: change.now) }
            let account = try AccountRecord.insert(
                change.session, owner: owner, name: name, currency: currency.code, startingBalance: balance, isDefault: isDefault,
                at: change.now
            ).result()
            change.record(AccountEvent.accountCreated(account))
            return account
        }
    }
}
