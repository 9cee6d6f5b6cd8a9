import TallyMoney
import TallyProtocol

/// What calc.tip and calc.tip_table share: the bill and every setting except the percentage, and
/// the arithmetic that turns a percentage into a tip, a total and each person's part.
struct TipBill {
    /// The arguments both commands take; calc.tip adds `tip_percent`.
    static let keys: Set<String> = ["amount", "currency", "split", "tax", "rounding", "rounding_increment"]
    static let largestPercent: Int64 = 50
    /// The coarsest rounding increment, in whole units of the currency.
    static let largestIncrementUnits: Int128 = 1000

    let currency: Currency
    /// The bill as printed, tax included.
    let amount: Int128
    /// What the percentage applies to: the amount, or the amount before tax when the tip is not on tax.
    let tipBase: Int128
    let rounding: TipRounding
    let increment: Int128
    let split: Int

    /// Reads the shared arguments; the command has already refused unknown keys.
    init(_ args: Arguments, locale: String?) throws(TallyError) {
        currency = try args.currency(locale: locale)
        amount = try args.amount("amount", in: currency)
        split = try args.optionalInteger("split", in: 1...People.most) ?? 1
        tipBase = try TipBill.tipBase(args, amount: amount)

        let roundingText = try args.optionalString("rounding") ?? TipRounding.exact.rawValue
        guard let rounding = TipRounding(rawValue: roundingText) else {
            throw .invalidArgument(
                "rounding must be one of \(TipRounding.allCases.map(\.rawValue).joined(separator: ", "))",
                field: args.field("rounding"))
        }
        self.rounding = rounding

        let largestIncrement = TipBill.largestIncrementUnits * currency.minorPerUnit
        increment = try args.optionalAmount("rounding_increment", in: currency) ?? currency.minorPerUnit
        guard increment > 0, increment <= largestIncrement else {
            throw .invalidArgument(
                "rounding_increment must be more than 0 and at most \(currency.format(largestIncrement)) \(currency.code)",
                field: args.field("rounding_increment"))
        }
    }

    /// `amount / (1 + rate/100)` to the nearest minor unit when `tax.tip_on_tax` is false, else the amount.
    private static func tipBase(_ args: Arguments, amount: Int128) throws(TallyError) -> Int128 {
        guard let tax = try args.optionalObject("tax") else { return amount }
        try tax.allowOnly(["rate", "tip_on_tax"])
        let rate = try tax.percent("rate", in: 0...100)
        guard try tax.optionalBool("tip_on_tax") == false else { return amount }
        return (Rational(amount) / (Rational(1) + rate.ratio)).rounded(.halfUp)
    }

    /// One person's part of the bill, in minor units.
    struct Share {
        let base: Int128
        let tip: Int128
        let total: Int128
    }

    /// The bill at one tip percentage.
    struct Charge {
        let tip: Int128
        let total: Int128
        let perPerson: [Share]
    }

    func charge(at percent: Percent) -> Charge {
        let tip = rounding.tip(exact: percent.of(tipBase), amount: amount, increment: increment)
        let total = amount + tip
        // Split the total and the tip, and take each base as the difference: every column then adds
        // up exactly, and no base is negative because equal splits of the larger total are never smaller.
        let perPerson = zip(Allocation.split(total, equally: split), Allocation.split(tip, equally: split))
            .map { Share(base: $0 - $1, tip: $1, total: $0) }
        return Charge(tip: tip, total: total, perPerson: perPerson)
    }
}

/// The bill as `calc.tip` and `calc.tip_table` both answer it back: its currency, amount and tip
/// base formatted in that currency, its rounding and its split.
struct TipBillFigures: Encodable, Sendable {
    let currency: String
    let amount: String
    let tipBase: String
    let rounding: TipRounding
    let split: Int
}

extension TipBillFigures {
    init(_ bill: TipBill) {
        currency = bill.currency.code
        amount = bill.currency.format(bill.amount)
        tipBase = bill.currency.format(bill.tipBase)
        rounding = bill.rounding
        split = bill.split
    }
}
