import TallyMoney
import TallyProtocol
import TallyStorage

/// `accounts.update`: changes any of an account's name, currency, starting balance and default
/// flag, validated as `accounts.create` validates them.
enum UpdateCommand {
    static let changeable = ["currency", "is_default", "name", "starting_balance"]

    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: AccountStore) throws -> StoredResult {
        let owner = caller.userID
        try args.allowOnly(Set(changeable + ["id"]))
        let id = try args.id("id", of: "one of your accounts")
        try args.requireAny(of: changeable, for: "accounts.update")
        var name: AccountName?
        if args.has("name") {
            guard let read = try AccountName.read(args) else {
                throw try store.emptyNameOrBalance(field: args.field("name"), locale: context.locale)
            }
            name = read
        }
        var balanceText: String?
        if args.has("starting_balance") {
            guard let read = try StartingBalance.text(args) else {
                throw try store.emptyNameOrBalance(field: args.field("starting_balance"), locale: context.locale)
            }
            balanceText = read
        }
        let newCurrency = args.has("currency") ? try args.currency(locale: context.locale) : nil
        let isDefault = try args.optionalBool("is_default")

        return try store.change(context, args, owner: owner) { change in
            var account = try AccountRecord.find(change.session, owner: owner, id: id)
            let original = account
            if let name {
                try AccountRecord.checkNameIsFree(change.session, owner: owner, name: name, exceptID: id)
                account.name = name.text
                account.nameKey = name.key
            }
            let currency = try newCurrency ?? account.storedCurrency()
            if let balanceText {
                account.startingBalance = try StartingBalance.parse(balanceText, in: currency, field: args.field("starting_balance"))
            } else if currency.code != account.currency {
                account.startingBalance = try rescale(account.startingBalance, from: account.storedCurrency(), to: currency)
            }
            account.currency = currency.code
            if let isDefault {
                if isDefault && !account.isDefault {
                    try AccountRecord.clearDefault(change.session, owner: owner, except: id, at: change.now)
                }
                account.isDefault = isDefault
            }
            if account != original {
                account.updatedAt = change.now
                try account.update(change.session)
            }
            let result = try account.result()
            change.record(AccountEvent.accountUpdated(result))
            return result
        }
    }

    /// The balance kept as the same decimal number in the new currency: no exchange rate applies.
    private static func rescale(_ balance: Int128, from old: Currency, to new: Currency) throws(TallyError) -> Int128 {
        if let rescaled = StartingBalance.rescale(balance, from: old, to: new) { return rescaled }
        let written = old.format(balance)
        if new.minorUnits < old.minorUnits {
            let places = new.minorUnits == 0 ? "are whole numbers" : "have at most \(new.minorUnits) decimal places"
            throw .invalidArgument(
                "the starting balance \(written) cannot be kept in \(new.code): \(new.code) amounts \(places); send a starting_balance in \(new.code) with the new currency",
                field: "args.currency")
        }
        throw .invalidArgument(
            "the starting balance \(written) does not fit in \(new.code): \(new.code) balances run from \(new.format(-StartingBalance.largestMinor)) to \(new.format(StartingBalance.largestMinor)); send a smaller starting_balance with the new currency",
            field: "args.currency")
    }
}
