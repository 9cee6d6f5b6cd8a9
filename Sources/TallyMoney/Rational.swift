/// An exact fraction, for the moments money is between whole minor units: a percentage of an
/// amount, an item shared by three, a bill net of tax. Always reduced, with a positive denominator.
///
/// `Int128` parts hold every value Tally makes from parsed inputs (bill amounts below 10^16 minor
/// units, percentages in ten-thousandths, denominators dividing lcm(1...50) for shared items) with
/// a wide margin; arithmetic traps rather than wraps if a caller ever goes past that.
public struct Rational: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let numerator: Int128
    public let denominator: Int128

    public init(_ numerator: Int128, _ denominator: Int128 = 1) {
        precondition(denominator != 0, "a rational's denominator cannot be zero")
        let divisor = Rational.gcd(numerator, denominator) * (denominator < 0 ? -1 : 1)
        self.numerator = numerator / divisor
        self.denominator = denominator / divisor
    }

    public init(_ integer: Int64) {
        self.init(Int128(integer))
    }

    public static let zero = Rational(0)

    public var description: String { denominator == 1 ? "\(numerator)" : "\(numerator)/\(denominator)" }

    public static func + (lhs: Rational, rhs: Rational) -> Rational {
        let common = gcd(lhs.denominator, rhs.denominator)
        return Rational(
            lhs.numerator * (rhs.denominator / common) + rhs.numerator * (lhs.denominator / common),
            lhs.denominator / common * rhs.denominator)
    }

    public static func * (lhs: Rational, rhs: Rational) -> Rational {
        // Cancel across before multiplying, so products stay as small as the result.
        let left = gcd(lhs.numerator, rhs.denominator)
        let right = gcd(rhs.numerator, lhs.denominator)
        return Rational(
            (lhs.numerator / left) * (rhs.numerator / right),
            (lhs.denominator / right) * (rhs.denominator / left))
    }

    public static func / (lhs: Rational, rhs: Rational) -> Rational {
        precondition(rhs.numerator != 0, "division by zero")
        return lhs * Rational(rhs.denominator, rhs.numerator)
    }

    /// Compares by cross-multiplying at double width, so no pair of rationals can overflow it.
    public static func < (lhs: Rational, rhs: Rational) -> Bool {
        let left = lhs.numerator.multipliedFullWidth(by: rhs.denominator)
        let right = rhs.numerator.multipliedFullWidth(by: lhs.denominator)
        return (left.high, left.low) < (right.high, right.low)
    }

    /// The greatest common divisor, non-negative; gcd(0, 0) is 1 so it can always divide.
    static func gcd(_ a: Int128, _ b: Int128) -> Int128 {
        var (a, b) = (a.magnitude, b.magnitude)
        while b != 0 { (a, b) = (b, a % b) }
        return a == 0 ? 1 : Int128(a)
    }
}
