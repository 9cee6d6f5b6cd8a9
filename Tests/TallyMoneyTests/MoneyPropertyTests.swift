import Testing
import TallyMoney
import TallyTesting

/// Random bills from a fixed seed: the invariants that make allocation and rounding safe for money.
@Suite struct MoneyPropertyTests {
    @Test func allocationsAddUpAndStayWithinAUnitOfTheExactShare() {
        var random = SplitMix64(seed: 0x7A11_0001)
        for _ in 0..<2000 {
            let total = Int128(Int64.random(in: 0...10_000_000, using: &random))
            let count = Int.random(in: 1...50, using: &random)
            let weights = (0..<count).map { _ in Int64.random(in: 0...(Bool.random(using: &random) ? 10 : 1_000_000), using: &random) }
            let parts = Allocation.split(total, proportionalTo: weights)

            #expect(parts.count == count)
            #expect(parts.reduce(0, +) == total)
            #expect(parts.allSatisfy { $0 >= 0 })
            let sum = weights.reduce(0, +)
            for (part, weight) in zip(parts, weights) {
                let exact = sum == 0 ? Rational(Int128(total), Int128(count)) : Rational(Int128(total) * Int128(weight), Int128(sum))
                #expect(Rational(part - 1) < exact && exact < Rational(part + 1), "total \(total), weights \(weights)")
            }
        }
    }

    @Test func roundingUpNeverGoesBelowAndDownNeverAbove() {
        var random = SplitMix64(seed: 0x7A11_0002)
        for _ in 0..<2000 {
            let exact = Rational(Int128.random(in: 0...10_000_000_000, using: &random), Int128.random(in: 1...1_000_000, using: &random))
            let increment = ([1, 5, 10, 25, 100, 1000] as [Int128]).randomElement(using: &random)!
            let up = exact.rounded(.up, toMultipleOf: increment)
            let down = exact.rounded(.down, toMultipleOf: increment)
            let nearest = exact.rounded(.halfUp, toMultipleOf: increment)

            #expect(Rational(up) >= exact && Rational(up - increment) < exact)
            #expect(Rational(down) <= exact && Rational(down + increment) > exact)
            #expect(up % increment == 0 && down % increment == 0 && nearest % increment == 0)
            #expect(nearest == down || nearest == up)
        }
    }

    @Test func amountsSurviveFormattingAndParsing() throws {
        var random = SplitMix64(seed: 0x7A11_0003)
        for currency in Currency.all {
            for _ in 0..<20 {
                let amount = Int128.random(in: 0...currency.largestAmount, using: &random)
                #expect(try currency.parseAmount(currency.format(amount)) == amount)
            }
        }
    }
}
