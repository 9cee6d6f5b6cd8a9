import TallyMoney
import TallyProtocol
import TallyTesting
import Testing

/// Random bills in every split mode, from a fixed seed: whatever the mode, every column adds up to
/// its total, each person's total is their row, and nobody owes a negative amount.
@Suite struct SplitPropertyTests {
    @Test func columnsAlwaysAddUp() throws {
        var random = SplitMix64(seed: 0x5EED_CA1C)
        let currencies = ["USD", "JPY", "BHD"].map { Currency.lookup($0)! }
        for _ in 0..<300 {
            let currency = currencies.randomElement(using: &random)!
            let people = Int.random(in: 1...12, using: &random)
            let amount = { (range: ClosedRange<Int64>) in JSONValue.string(currency.format(Int128(Int64.random(in: range, using: &random)))) }
            let subtotal = Int128(Int64.random(in: 0...500_000, using: &random))
            var args: [String: JSONValue] = [
                "currency": .string(currency.code), "people": .integer(Int64(people)), "subtotal": .string(currency.format(subtotal)),
                "tax": amount(0...50_000),
            ]
            switch Int.random(in: 0..<3, using: &random) {
            case 0: args["tip"] = ["percent": .integer(Int64.random(in: 0...50, using: &random))]
            case 1: args["tip"] = ["amount": amount(0...90_000)]
            default: break
            }
            switch Int.random(in: 0..<4, using: &random) {
            case 0:
                args["mode"] = "shares"
                args["shares"] = .array((0..<people).map { _ in .integer(Int64.random(in: 1...9, using: &random)) })
            case 1:
                args["mode"] = "amounts"
                args["subtotal"] = nil
                args["amounts"] = .array((0..<people).map { _ in amount(0...100_000) })
            case 2:
                // Items cover at most the subtotal; each is shared by a random non-empty group.
                args["mode"] = "items"
                var left = subtotal
                args["items"] = .array((0..<Int.random(in: 1...6, using: &random)).map { _ in
                    let price = Int128.random(in: 0...left, using: &random)
                    left -= price
                    let group = (0..<people).filter { _ in Bool.random(using: &random) }
                    let sharers = group.isEmpty ? [Int.random(in: 0..<people, using: &random)] : group
                    return ["price": .string(currency.format(price)), "people": .array(sharers.map { .integer(Int64($0)) })]
                })
            default:
                break
            }

            let result = try calc("calc.split", .object(args))
            let rows = try #require(result["people"]?.arrayValue)
            #expect(rows.count == people)
            let parse = { (text: String?) throws -> Int128 in try currency.parseAmount(try #require(text)) }
            for key in ["subtotal", "tax", "tip", "total"] {
                let parts = try rows.map { try parse($0[key]?.stringValue) }
                #expect(parts.reduce(0, +) == (try parse(result[key]?.stringValue)), "\(key) in \(args)")
                #expect(parts.allSatisfy { $0 >= 0 })
            }
            for row in rows {
                let sum = try ["subtotal", "tax", "tip"].map { try parse(row[$0]?.stringValue) }.reduce(0, +)
                #expect(sum == (try parse(row["total"]?.stringValue)))
            }
        }
    }
}
