import TallyMoney
import TallyProtocol

/// `calc.tip`: the tip, total and each person's part of a bill at one percentage.
enum TipCommand {
    static let keys = TipBill.keys.union(["tip_percent"])

    static func run(_ args: Arguments, _ context: RequestContext) throws(TallyError) -> TipResult {
        try args.allowOnly(keys)
        let bill = try TipBill(args, locale: context.locale)
        let percent = try args.percent("tip_percent", in: 0...TipBill.largestPercent)
        let charge = bill.charge(at: percent)
        let currency = bill.currency
        return TipResult(
            bill: TipBillFigures(bill),
            tip: currency.format(charge.tip),
            total: currency.format(charge.total),
            effectiveTipPercent: effectivePercent(tip: charge.tip, of: bill.tipBase),
            perPerson: charge.perPerson.map {
                TipResult.PersonPart(base: currency.format($0.base), tip: currency.format($0.tip), total: currency.format($0.total))
            })
    }

    /// The tip as a percentage of the tip base after rounding, to two places; "0.00" on a zero base.
    static func effectivePercent(tip: Int128, of base: Int128) -> String {
        guard base > 0 else { return DecimalText.format(0, scale: 2) }
        let hundredths = (Rational(tip) * Rational(10_000) / Rational(base)).rounded(.halfUp)
        return DecimalText.format(hundredths, scale: 2)
    }
}

struct TipResult: Encodable, JSONSelfWriting, Sendable {
    @Inlined var bill: TipBillFigures
    let tip: String
    let total: String
    let effectiveTipPercent: String
    let perPerson: [PersonPart]

    struct PersonPart: Encodable, JSONSelfWriting, Sendable {
        let base: String
        let tip: String
        let total: String

        func writeJSON(into out: inout [UInt8]) {
            out.append(UInt8(ascii: "{"))
            var members = JSONMembers()
            members.string("base", base, into: &out)
            members.string("tip", tip, into: &out)
            members.string("total", total, into: &out)
            out.append(UInt8(ascii: "}"))
        }
    }

    /// The reply of the hottest command, written without `Encodable` (`JSONSelfWriting`); the keys
    /// in their sorted order. `TipReplyWritingTests` holds it equal to the `Encodable` form.
    func writeJSON(into out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        var members = JSONMembers()
        members.string("amount", bill.amount, into: &out)
        members.string("currency", bill.currency, into: &out)
        members.string("effective_tip_percent", effectiveTipPercent, into: &out)
        members.array("per_person", perPerson, into: &out)
        members.string("rounding", bill.rounding.rawValue, into: &out)
        members.integer("split", Int64(bill.split), into: &out)
        members.string("tip", tip, into: &out)
        members.string("tip_base", bill.tipBase, into: &out)
        members.string("total", total, into: &out)
        out.append(UInt8(ascii: "}"))
    }
}
