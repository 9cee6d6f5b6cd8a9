/// A percentage as written, with up to four decimal places (`"18"`, `"8.875"`), held exactly.
public struct Percent: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Decimal places a percentage may have: enough for any tax rate in use (8.875, 7.6525).
    public static let fractionDigits = 4

    /// The percentage in ten-thousandths of a percent: `"8.875"` is 88 750.
    public let tenThousandths: Int128

    public init(tenThousandths: Int128) {
        self.tenThousandths = tenThousandths
    }

    public init(whole: Int64) {
        self.init(tenThousandths: Int128(whole) * DecimalText.powerOfTen(Percent.fractionDigits))
    }

    public init(parsing text: String) throws(DecimalTextError) {
        self.init(tenThousandths: try DecimalText.parse(text, scale: Percent.fractionDigits))
    }

    /// The percentage as a plain ratio: 18% is 18/100.
    public var ratio: Rational {
        Rational(tenThousandths, 100 * DecimalText.powerOfTen(Percent.fractionDigits))
    }

    /// `amount × percent / 100`, exactly, in the amount's minor units.
    public func of(_ amount: Int128) -> Rational {
        ratio * Rational(amount)
    }

    /// The shortest exact decimal: `18`, `8.875`.
    public var description: String {
        let text = DecimalText.format(tenThousandths, scale: Percent.fractionDigits)
        let trimmed = text.reversed().drop(while: { $0 == "0" }).drop(while: { $0 == "." })
        return String(trimmed.reversed())
    }

    public static func < (lhs: Percent, rhs: Percent) -> Bool { lhs.tenThousandths < rhs.tenThousandths }
}
