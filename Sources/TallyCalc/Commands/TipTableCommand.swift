import TallyMoney
import TallyProtocol

/// `calc.tip_table`: the bill at every whole percentage from 0 to 50, for a picker that shows the
/// tip beside each choice.
enum TipTableCommand {
    static func run(_ args: Arguments, _ context: RequestContext) throws(TallyError) -> TipTableResult {
        try args.allowOnly(TipBill.keys)
        let bill = try TipBill(args, locale: context.locale)
        let currency = bill.currency
        return TipTableResult(
            bill: TipBillFigures(bill),
            rows: (0...TipBill.largestPercent).map { percent in
                let charge = bill.charge(at: Percent(whole: percent))
                return TipTableResult.Row(
                    percent: String(percent),
                    tip: currency.format(charge.tip),
                    total: currency.format(charge.total),
                    // What each person must be ready to pay: the largest part.
                    perPersonTotal: currency.format(charge.perPerson.map(\.total).max() ?? charge.total))
            })
    }
}

struct TipTableResult: Encodable, Sendable {
    @Inlined var bill: TipBillFigures
    let rows: [Row]

    struct Row: Encodable, Sendable {
        let percent: String
        let tip: String
        let total: String
        let perPersonTotal: String
    }
}
