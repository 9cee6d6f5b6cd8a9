import TallyMoney
import TallyProtocol

/// calc.split's `items` mode: each item is shared equally by the people who had it, and whatever
/// the items leave of the subtotal is shared equally by everyone.
///
/// Each person's exact share is summed as a fraction across all items first and the subtotal is
/// allocated once, so rounding happens once per bill rather than once per item.
enum ItemSplit {
    static let most = 200

    static func subtotalParts(_ args: Arguments, people: Int, currency: Currency) throws(TallyError) -> (subtotal: Int128, parts: [Int128]) {
        let field = args.field("items")
        let elements = try args.elements("items", example: "a list of {\"name\", \"price\", \"people\"}")
        guard (1...most).contains(elements.count) else {
            throw .invalidArgument("items must list 1 to \(most) items", field: field)
        }

        var items: [(price: Int128, sharers: [Int])] = []
        for element in elements {
            let item = try Arguments(element.value, path: element.field)
            try item.allowOnly(["name", "price", "people"])
            // The name is the client's own label; it is only checked, so it stays displayable.
            if let name = item.values["name"], name != .null {
                _ = try Label.read(name, field: item.field("name"), name: "name")
            }
            let price = try item.amount("price", in: currency)
            let sharers = try item.elements("people", example: "the indexes of the people who shared it, such as [0, 2]")
                .indexes(into: people, of: "people")
            guard !sharers.isEmpty else {
                throw .invalidArgument("people must list at least one person who shared the item", field: item.field("people"))
            }
            items.append((price, sharers))
        }

        guard let itemsTotal = currency.total(items.map(\.price)) else {
            throw .invalidArgument(
                "items add up to more than \(currency.format(currency.largestAmount)), the largest amount supported",
                field: field)
        }
        let subtotal = try args.optionalAmount("subtotal", in: currency) ?? itemsTotal
        guard itemsTotal <= subtotal else {
            throw .invalidArgument(
                "items add up to \(currency.format(itemsTotal)), more than the subtotal of \(currency.format(subtotal))",
                field: field)
        }

        var exact = Array(repeating: Rational(Int128(subtotal - itemsTotal), Int128(people)), count: people)
        for item in items {
            let each = Rational(Int128(item.price), Int128(item.sharers.count))
            for person in item.sharers { exact[person] = exact[person] + each }
        }
        return (subtotal, Allocation.split(subtotal, proportionalTo: exact))
    }
}
