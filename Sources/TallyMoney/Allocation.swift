/// Splitting a whole number of minor units into parts, so that nobody is asked for a fraction of
/// a cent and the parts still add up to the total exactly.
///
/// Largest remainder (Hamilton's method): each part first gets the floor of its exact proportional
/// share; the few units left over go one each to the parts with the largest fractional remainders,
/// the lower index first on a tie. The result is deterministic, never negative, and every part is
/// within one unit of its exact share.
public enum Allocation {
    /// Splits `total` into `count` parts as equal as whole units allow; earlier parts get the extra units.
    ///
    /// What `split(_:proportionalTo:)` gives for equal weights (every remainder ties, so the lower
    /// indices get the units left over), in closed form: each `calc.tip` makes two of these.
    public static func split(_ total: Int128, equally count: Int) -> [Int128] {
        precondition(count > 0, "there must be at least one part")
        precondition(total >= 0, "only non-negative totals are allocated")
        let (share, leftover) = total.quotientAndRemainder(dividingBy: Int128(count))
        return (0..<count).map { $0 < leftover ? share + 1 : share }
    }

    /// Splits `total` in proportion to non-negative integer `weights`; all-zero weights split equally.
    public static func split<Weight: BinaryInteger>(_ total: Int128, proportionalTo weights: [Weight]) -> [Int128] {
        precondition(!weights.isEmpty, "there must be at least one part")
        precondition(total >= 0, "only non-negative totals are allocated")
        precondition(weights.allSatisfy { $0 >= 0 }, "weights must not be negative")
        var wide = weights.map { Int128($0) }
        if wide.allSatisfy({ $0 == 0 }) { wide = wide.map { _ in 1 } }
        let sum = wide.reduce(0, +)

        // Each exact share is total × weight / sum; the double-width product cannot overflow and
        // the quotient is at most `total`, so it always fits.
        let shares = wide.map { sum.dividingFullWidth(total.multipliedFullWidth(by: $0)) }
        var parts = shares.map(\.quotient)
        let leftover = Int(total - parts.reduce(0, +))
        let byRemainder = parts.indices.sorted {
            shares[$0].remainder != shares[$1].remainder ? shares[$0].remainder > shares[$1].remainder : $0 < $1
        }
        for index in byRemainder.prefix(leftover) { parts[index] += 1 }
        return parts
    }

    /// Splits `total` in proportion to non-negative rational `weights`, such as each person's exact
    /// share of the items they ate; all-zero weights split equally.
    public static func split(_ total: Int128, proportionalTo weights: [Rational]) -> [Int128] {
        let commonDenominator = weights.reduce(Int128(1)) { common, weight in
            common / Rational.gcd(common, weight.denominator) * weight.denominator
        }
        return split(total, proportionalTo: weights.map { $0.numerator * (commonDenominator / $0.denominator) })
    }
}
