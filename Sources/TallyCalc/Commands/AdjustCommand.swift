import TallyMoney
import TallyProtocol

/// `calc.adjust`: the split-adjustments page. One person's share changes, the bill total stays,
/// and the difference is spread over everyone not locked, in proportion to what they pay now.
enum AdjustCommand {
    static let keys: Set<String> = ["currency", "shares", "person", "amount", "locked"]

    static func run(_ args: Arguments, _ context: RequestContext) throws(TallyError) -> AdjustResult {
        try args.allowOnly(keys)
        let currency = try args.currency(locale: context.locale)
        let elements = try args.elements("shares", example: "each person's current total, such as [\"33.04\", \"33.04\"]")
        guard (1...People.most).contains(elements.count) else {
            throw .invalidArgument("shares must list 1 to \(People.most) amounts", field: args.field("shares"))
        }
        var shares: [Int128] = []
        for element in elements {
            shares.append(try Arguments.amount(element.value, in: currency, field: element.field, name: element.name))
        }
        let person = try args.integer("person", in: 0...(shares.count - 1))
        let amount = try args.amount("amount", in: currency)
        let locked = try (args.optionalElements("locked") ?? []).indexes(into: shares.count, of: "shares")

        // Fifty shares of at most 10^15 minor units each cannot overflow.
        let total = shares.reduce(0, +)
        let lockedOthers = locked.filter { $0 != person }
        let others = shares.indices.filter { $0 != person && !locked.contains($0) }
        let remaining = total - amount - lockedOthers.map { shares[$0] }.reduce(0, +)
        guard remaining >= 0 else {
            let what = lockedOthers.isEmpty ? "the new amount exceeds" : "the locked shares and the new amount exceed"
            throw .invalidArgument("\(what) the bill total of \(currency.format(total))", field: args.field("amount"))
        }

        var adjusted = shares
        adjusted[person] = amount
        if others.isEmpty {
            guard remaining == 0 else {
                let reason = shares.count == 1 ? "there is nobody else to share the bill" : "everyone else is locked"
                throw .invalidArgument(
                    "\(reason), so person \(person)'s share cannot change from \(currency.format(shares[person]))",
                    field: args.field("amount"))
            }
        } else {
            for (index, share) in zip(others, Allocation.split(remaining, proportionalTo: others.map { shares[$0] })) {
                adjusted[index] = share
            }
        }
        return AdjustResult(
            currency: currency.code,
            total: currency.format(total),
            shares: adjusted.map(currency.format),
            changed: shares.indices.filter { shares[$0] != adjusted[$0] })
    }
}

struct AdjustResult: Encodable, Sendable {
    let currency: String
    let total: String
    let shares: [String]
    let changed: [Int]
}
