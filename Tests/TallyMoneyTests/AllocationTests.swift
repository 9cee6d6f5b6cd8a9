import Testing
import TallyMoney

@Suite struct AllocationTests {
    @Test func equalSplitsGiveExtraUnitsToTheFirstParts() {
        #expect(Allocation.split(9912, equally: 3) == [3304, 3304, 3304])
        #expect(Allocation.split(100, equally: 3) == [34, 33, 33])
        #expect(Allocation.split(101, equally: 3) == [34, 34, 33])
        #expect(Allocation.split(2, equally: 5) == [1, 1, 0, 0, 0])
        #expect(Allocation.split(0, equally: 2) == [0, 0])
        #expect(Allocation.split(7, equally: 1) == [7])
    }

    @Test func equalSplitsAreProportionalSplitsOfEqualWeights() {
        // The equal split is computed in closed form; it must be the largest-remainder split it stands for.
        var generator = SystemRandomNumberGenerator()
        for count in 1...12 {
            for total in [Int128(0), 1, 99, 100, 101, 9_912, 99_999_999_999_999, Int128.random(in: 0...1_000_000_000, using: &generator)] {
                #expect(Allocation.split(total, equally: count) == Allocation.split(total, proportionalTo: Array(repeating: 1, count: count)))
            }
        }
    }

    @Test func proportionalSplitsUseLargestRemainders() {
        // Exact shares 2.5, 3.5, 4: the one unit left goes to the larger remainder, a tie to the lower index.
        #expect(Allocation.split(10, proportionalTo: [5, 7, 8]) == [3, 3, 4])
        #expect(Allocation.split(10, proportionalTo: [1, 1, 2]) == [3, 2, 5])
        // Exact 3.33, 6.67: the larger remainder wins even at a higher index.
        #expect(Allocation.split(10, proportionalTo: [1, 2]) == [3, 7])
        #expect(Allocation.split(10, proportionalTo: [0, 3, 0]) == [0, 10, 0])
    }

    @Test func allZeroWeightsSplitEqually() {
        #expect(Allocation.split(10, proportionalTo: [0, 0, 0]) == [4, 3, 3])
        #expect(Allocation.split(10, proportionalTo: [Rational.zero, .zero]) == [5, 5])
    }

    @Test func rationalWeightsAreExact() {
        // A third, a sixth and a half of 1.00.
        #expect(Allocation.split(100, proportionalTo: [Rational(1, 3), Rational(1, 6), Rational(1, 2)]) == [33, 17, 50])
        // Shares with every denominator up to 50 still fit.
        let weights = (1...50).map { Rational(99_999_999_999_999, Int128($0)) }
        let parts = Allocation.split(99_999_999_999_999, proportionalTo: weights)
        #expect(parts.reduce(0, +) == 99_999_999_999_999)
        #expect(zip(parts, parts.dropFirst()).allSatisfy { $0 >= $1 })
    }

    @Test func largeTotalsAndWeightsDoNotOverflow() {
        let parts = Allocation.split(Int128.max / 2, proportionalTo: [Int64.max, Int64.max - 1, 1])
        #expect(parts.reduce(0, +) == Int128.max / 2)
        // 10^20 banknotes split three ways in cents: past 64 bits, and still exact.
        let huge: Int128 = 100_000_000_000_000_000_000_00
        let thirds = Allocation.split(huge, equally: 3)
        #expect(thirds == [33_333_333_333_333_333_333_34, 33_333_333_333_333_333_333_33, 33_333_333_333_333_333_333_33])
        #expect(thirds.reduce(0, +) == huge)
    }
}
