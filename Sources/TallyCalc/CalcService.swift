import TallyProtocol
import TallyWorker

/// The calculation service: the tip calculator's arithmetic (tip, tip table, split adjustments) and
/// the bill splitter's, as stateless queries over exact money. Open to anyone: it holds no one's data.
public struct CalcService: ServiceHandler {
    public static let table = CommandTable<Void>("calc") { table in
        table.query("calc.tip", "Tip, total and per-person shares of a bill.") { args, context, _ in try TipCommand.run(args, context) }
        table.query("calc.tip_table", "Tip and total at every whole percentage from 0 to 50.") { args, context, _ in
            try TipTableCommand.run(args, context)
        }
        table.query("calc.split", "Split a bill with tax and tip, equally or by items, shares, amounts or percents.") { args, context, _ in
            try SplitCommand.run(args, context)
        }
        table.query("calc.adjust", "Change one person's share and rebalance the others.") { args, context, _ in
            try AdjustCommand.run(args, context)
        }
    }

    public let resources: Void = ()

    public init() {}
}
