import TallyMoney
import TallyProtocol

/// How calc.split divides the subtotal. Every mode but `equal` reads a list named after it
/// (`items`, `shares`, `amounts`, `percents`), and only in that mode.
enum SplitMode: String, CaseIterable, Sendable, Encodable {
    case equal, items, shares, amounts, percents

    /// Reads `mode` (default `equal`) and refuses another mode's list, which would otherwise be ignored.
    init(_ args: Arguments) throws(TallyError) {
        let text = try args.optionalString("mode") ?? SplitMode.equal.rawValue
        guard let mode = SplitMode(rawValue: text) else {
            throw .invalidArgument(
                "mode must be one of \(SplitMode.allCases.map(\.rawValue).joined(separator: ", "))",
                field: args.field("mode"))
        }
        for other in SplitMode.allCases where other != mode && other != .equal && args.has(other.rawValue) {
            throw .invalidArgument(
                "\(other.rawValue) only applies when mode is \"\(other.rawValue)\", and mode is \"\(mode.rawValue)\"",
                field: args.field(other.rawValue))
        }
        self = mode
    }

    /// The subtotal and each person's part of it, in minor units; the parts add up to the subtotal.
    func subtotalParts(_ args: Arguments, people: Int, currency: Currency) throws(TallyError) -> (subtotal: Int128, parts: [Int128]) {
        switch self {
        case .equal:
            let subtotal = try args.amount("subtotal", in: currency)
            return (subtotal, Allocation.split(subtotal, equally: people))

        case .items:
            return try ItemSplit.subtotalParts(args, people: people, currency: currency)

        case .shares:
            let subtotal = try args.amount("subtotal", in: currency)
            var weights: [Int128] = []
            for element in try elements(args, people: people) {
                weights.append(try Arguments.weight(element.value, field: element.field, name: element.name))
            }
            guard weights.contains(where: { $0 > 0 }) else {
                throw .invalidArgument("shares must not all be zero; give each person a weight such as \"1\"", field: args.field("shares"))
            }
            return (subtotal, Allocation.split(subtotal, proportionalTo: weights))

        case .amounts:
            var amounts: [Int128] = []
            for element in try elements(args, people: people) {
                amounts.append(try Arguments.amount(element.value, in: currency, field: element.field, name: element.name))
            }
            guard let sum = currency.total(amounts) else {
                throw .invalidArgument(
                    "amounts add up to more than \(currency.format(currency.largestAmount)), the largest amount supported",
                    field: args.field("amounts"))
            }
            if let subtotal = try args.optionalAmount("subtotal", in: currency), subtotal != sum {
                throw .invalidArgument(
                    "amounts add up to \(currency.format(sum)), but the subtotal is \(currency.format(subtotal))",
                    field: args.field("amounts"))
            }
            return (sum, amounts)

        case .percents:
            let subtotal = try args.amount("subtotal", in: currency)
            var percents: [Percent] = []
            for element in try elements(args, people: people) {
                percents.append(try Arguments.percent(element.value, in: 0...100, field: element.field, name: element.name))
            }
            let sum = Percent(tenThousandths: percents.map(\.tenThousandths).reduce(0, +))
            guard sum == Percent(whole: 100) else {
                throw .invalidArgument("percents add up to \(sum), not 100", field: args.field("percents"))
            }
            return (subtotal, Allocation.split(subtotal, proportionalTo: percents.map(\.tenThousandths)))
        }
    }

    /// This mode's list, which must have one entry per person.
    private func elements(_ args: Arguments, people: Int) throws(TallyError) -> [ArgumentElement] {
        let key = rawValue
        let elements = try args.elements(key, example: "one entry per person")
        guard elements.count == people else {
            throw .invalidArgument(
                "\(key) must have one entry per person: \(people), not \(elements.count)", field: args.field(key))
        }
        return elements
    }
}
