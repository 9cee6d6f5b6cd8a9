import TallyProtocol

/// calc.split's `people`: how many share the bill, or their names.
enum People {
    /// The most people any bill is split between, in every calc command.
    static let most = 50

    /// The names, in order: as given, or `Person 1` to `Person N` for a count.
    static func names(_ args: Arguments) throws(TallyError) -> [String] {
        let field = args.field("people")
        switch args.values["people"] {
        case .integer:
            return (1...(try args.integer("people", in: 1...most))).map { "Person \($0)" }
        case .array(let values) where (1...most).contains(values.count):
            var names: [String] = []
            for element in ArgumentElement.list(values, field: field, name: "people") {
                names.append(try Label.read(element.value, field: element.field, name: element.name))
            }
            return names
        default:
            throw .invalidArgument(
                "people must be a count from 1 to \(most), or a list of 1 to \(most) names such as [\"Ana\", \"Ben\"]",
                field: field)
        }
    }
}
