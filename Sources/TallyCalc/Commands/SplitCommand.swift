import TallyMoney
import TallyProtocol

/// `calc.split`: the bill splitter. The subtotal is divided by the mode; tax and tip then follow
/// each person's part of the subtotal, so every column adds up exactly to its total.
enum SplitCommand {
    static let keys: Set<String> = ["currency", "people", "mode", "subtotal", "tax", "tip", "items", "shares", "amounts", "percents"]
    static let largestTipPercent: Int64 = 50

    static func run(_ args: Arguments, _ context: RequestContext) throws(TallyError) -> SplitResult {
        try args.allowOnly(keys)
        let currency = try args.currency(locale: context.locale)
        let names = try People.names(args)
        let mode = try SplitMode(args)
        let (subtotal, parts) = try mode.subtotalParts(args, people: names.count, currency: currency)
        let tax = try args.optionalAmount("tax", in: currency) ?? 0
        let tip = try tipAmount(args, subtotal: subtotal, currency: currency)

        let taxParts = Allocation.split(tax, proportionalTo: parts)
        let tipParts = Allocation.split(tip, proportionalTo: parts)
        return SplitResult(
            currency: currency.code,
            mode: mode,
            bill: SplitFigures(subtotal: subtotal, tax: tax, tip: tip, in: currency),
            people: names.indices.map { index in
                SplitResult.Person(
                    name: names[index],
                    share: SplitFigures(subtotal: parts[index], tax: taxParts[index], tip: tipParts[index], in: currency))
            })
    }

    /// `tip`: `{"percent": "15"}` of the subtotal, rounded half up, or `{"amount": "9.00"}`; none is 0.
    private static func tipAmount(_ args: Arguments, subtotal: Int128, currency: Currency) throws(TallyError) -> Int128 {
        guard let tip = try args.optionalObject("tip") else { return 0 }
        try tip.allowOnly(["percent", "amount"])
        switch (tip.has("percent"), tip.has("amount")) {
        case (true, false):
            return try tip.percent("percent", in: 0...largestTipPercent).of(subtotal).rounded(.halfUp)
        case (false, true):
            return try tip.amount("amount", in: currency)
        case (true, true):
            throw .invalidArgument("tip takes a percent or an amount, not both", field: tip.path)
        case (false, false):
            throw .invalidArgument(
                "tip needs a percent of the subtotal, such as {\"percent\": \"15\"}, or an amount, such as {\"amount\": \"9.00\"}",
                field: tip.path)
        }
    }
}

struct SplitResult: Encodable, Sendable {
    let currency: String
    let mode: SplitMode
    /// The bill's figures; each column of `people` adds up to its figure here.
    @Inlined var bill: SplitFigures
    let people: [Person]

    struct Person: Encodable, Sendable {
        let name: String
        @Inlined var share: SplitFigures
    }
}

/// A subtotal with its tax and tip, and their total, formatted in the bill's currency: the
/// bill's figures, and each person's share of them.
struct SplitFigures: Encodable, Sendable {
    let subtotal: String
    let tax: String
    let tip: String
    let total: String

    init(subtotal: Int128, tax: Int128, tip: Int128, in currency: Currency) {
        self.subtotal = currency.format(subtotal)
        self.tax = currency.format(tax)
        self.tip = currency.format(tip)
        total = currency.format(subtotal + tax + tip)
    }
}
