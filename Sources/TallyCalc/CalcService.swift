import TallyProtocol
import TallyWorker

/// The calculation service: the tip calculator's arithmetic (tip, tip table, split adjustments) and
/// the bill splitter's, as stateless queries over exact money.
public struct CalcService: ServiceHandler {
    public let serviceName = "calc"
    public let commands: CommandTable

    public init() {
        var commands = CommandTable()
        commands.register("calc.tip", TipCommand.run)
        commands.register("calc.tip_table", TipTableCommand.run)
        commands.register("calc.split", SplitCommand.run)
        commands.register("calc.adjust", AdjustCommand.run)
        self.commands = commands
    }
}
