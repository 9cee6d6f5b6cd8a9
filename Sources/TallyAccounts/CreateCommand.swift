import TallyMoney
import TallyProtocol
import TallyStorage

/// `accounts.create`: a new account for an owner, the add-account screen's Done button.
enum CreateCommand {
    static let keys: Set<String> = ["owner", "name", "currency", "starting_balance", "is_default"]

    static func run(_ args: Arguments, _ context: RequestContext, _ store: AccountStore) throws -> StoredResult {
        try args.allowOnly(keys)
        let owner = try Owner.read(args)
        guard let name = try AccountName.read(args) else {
            throw try store.emptyNameOrBalance(field: args.field("name"), locale: context.locale)
        }
        guard let balanceText = try StartingBalance.text(args) else {
            throw try store.emptyNameOrBalance(field: args.field("starting_balance"), locale: context.locale)
        }
        let currency = try args.currency(locale: context.locale)
        let balance = try StartingBalance.parse(balanceText, in: currency, field: args.field("starting_balance"))
        let isDefault = try args.optionalBool("is_default") ?? false

        return try store.mutate(args, context, owner: owner) { db in
            try AccountRecord.checkNameIsFree(db, owner: owner, name: name)
            let now = Timestamp.now()
            if isDefault { try AccountRecord.clearDefault(db, owner: owner, except: nil, at: now) }
            var account = AccountRecord(
                id: nil, owner: owner, name: name.text, nameKey: name.key, currency: currency.code,
                startingBalance: balance, isDefault: isDefault, createdAt: now, updatedAt: now)
            try account.insert(db)
            return try account.result()
        }
    }
}
