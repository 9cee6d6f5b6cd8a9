/// How an exact value becomes a whole number of minor units (or of an increment such as 5 cents).
public enum RoundingRule: Sendable, Hashable {
    /// To the nearest; exact halves go up (toward positive infinity), which for the non-negative
    /// amounts money deals in is the "round half up" people expect.
    case halfUp
    /// Ceiling: never less than the exact value.
    case up
    /// Floor: never more than the exact value.
    case down
}

extension Rational {
    /// The multiple of `increment` this value rounds to by `rule`: with increment 5, 12.4 rounds
    /// up to 15 and down to 10. An increment of 1 rounds to whole minor units.
    public func rounded(_ rule: RoundingRule, toMultipleOf increment: Int128 = 1) -> Int128 {
        precondition(increment > 0, "a rounding increment must be positive")
        let divisor = denominator * increment
        // Floor division: Swift's `/` truncates toward zero, so step down for negative remainders.
        var quotient = numerator / divisor
        var remainder = numerator % divisor
        if remainder < 0 {
            quotient -= 1
            remainder += divisor
        }
        let roundsUp: Bool
        switch rule {
        case .down: roundsUp = false
        case .up: roundsUp = remainder != 0
        case .halfUp: roundsUp = remainder * 2 >= divisor
        }
        return (quotient + (roundsUp ? 1 : 0)) * increment
    }
}
