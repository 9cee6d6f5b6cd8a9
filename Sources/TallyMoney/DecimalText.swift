/// Exact reading and writing of plain decimal numerals such as `84`, `84.50` or `0.125`.
///
/// Only `^[0-9]+(\.[0-9]+)?$` is accepted: no sign, exponent, spaces or thousands separators, so
/// what a person typed is exactly what is counted and nothing depends on a locale. A value is held
/// as an integer count of 10^-scale (`"84.5"` at scale 2 is 8450) in 128 bits, never as binary
/// floating point.
public enum DecimalText {
    /// The most digits a value may have before the point, leading zeros aside. Twelve digits at a
    /// scale of at most four stay below 10^16, so values, sums of a few hundred of them and their
    /// products with a percentage never come near overflowing.
    public static let maxIntegerDigits = 12

    /// The finest scale any decimal may be read at: four places, for percents and weights.
    public static let maxScale = 4

    /// Reads `text` as a count of 10^-`scale`. More fraction digits than `scale` is an error, not a
    /// rounding: `"1.234"` is not a dollar amount.
    public static func parse(_ text: String, scale: Int) throws(DecimalTextError) -> Int128 {
        precondition((0...maxScale).contains(scale), "scale must be 0 to \(maxScale)")
        // Read in place: every amount and percentage of every request comes through here, and a
        // copy of the text into an array would be an allocation each.
        var text = text
        return try text.withUTF8 { bytes in Result { () throws(DecimalTextError) in try parse(bytes, scale: scale) } }.get()
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>, scale: Int) throws(DecimalTextError) -> Int128 {
        let point = bytes.firstIndex(of: UInt8(ascii: "."))
        let integerDigits = bytes[..<(point ?? bytes.endIndex)]
        let fractionDigits = point.map { bytes[($0 + 1)...] } ?? bytes[bytes.endIndex...]
        guard !integerDigits.isEmpty, integerDigits.allSatisfy(isDigit),
            point == nil || (!fractionDigits.isEmpty && fractionDigits.allSatisfy(isDigit))
        else { throw .malformed }

        let significant = integerDigits.drop(while: { $0 == UInt8(ascii: "0") })
        guard significant.count <= maxIntegerDigits else { throw .tooLarge }
        guard fractionDigits.count <= scale else {
            throw .tooManyFractionDigits(found: fractionDigits.count, allowed: scale)
        }

        // At most 12 + 4 digits: 64 bits hold them.
        var value: Int64 = 0
        for digit in significant { value = value * 10 + Int64(digit - UInt8(ascii: "0")) }
        for digit in fractionDigits { value = value * 10 + Int64(digit - UInt8(ascii: "0")) }
        return Int128(value) * powerOfTen(scale - fractionDigits.count)
    }

    /// Writes a count of 10^-`scale` with exactly `scale` fraction digits: 1512 at scale 2 is `15.12`.
    ///
    /// Every amount in every reply passes through here, so the digits are written straight into a
    /// buffer, in 64-bit arithmetic whenever the value fits (it nearly always does): building the
    /// numeral from `String(UInt128)`s and concatenations cost a twentieth of a calc worker's time.
    public static func format(_ value: Int128, scale: Int) -> String {
        precondition((0...maxScale).contains(scale), "scale must be 0 to \(maxScale)")
        // 39 digits at most, the point, the sign, and the leading zeros of `0.000x`.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 48) { buffer in
            var start = buffer.count
            if let magnitude = UInt64(exactly: value.magnitude) {
                writeDigits(magnitude, scale: scale, into: buffer, before: &start)
            } else {
                writeDigits(value.magnitude, scale: scale, into: buffer, before: &start)
            }
            if value < 0 {
                start -= 1
                buffer[start] = UInt8(ascii: "-")
            }
            return String(decoding: UnsafeMutableBufferPointer(rebasing: buffer[start...]), as: UTF8.self)
        }
    }

    /// Writes `magnitude`'s digits, right to left, ending just before `start`: at least one digit
    /// before the point and exactly `scale` after it.
    private static func writeDigits<Magnitude: UnsignedInteger>(
        _ magnitude: Magnitude, scale: Int, into buffer: UnsafeMutableBufferPointer<UInt8>, before start: inout Int
    ) {
        var rest = magnitude
        var written = 0
        repeat {
            if written == scale && scale > 0 {
                start -= 1
                buffer[start] = UInt8(ascii: ".")
            }
            let (quotient, digit) = rest.quotientAndRemainder(dividingBy: 10)
            start -= 1
            buffer[start] = UInt8(ascii: "0") + UInt8(digit)
            rest = quotient
            written += 1
        } while rest > 0 || written <= scale
    }

    /// 10^`exponent` for the small exponents money needs.
    public static func powerOfTen(_ exponent: Int) -> Int128 {
        (0..<exponent).reduce(1) { value, _ in value * 10 }
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}

/// Why a decimal numeral was refused; `Arguments` turns it into a message naming the field.
public enum DecimalTextError: Error, Equatable, Sendable {
    /// Not `digits[.digits]`: empty, signed, an exponent, spaces, separators, `.5` or `5.`.
    case malformed
    /// More fraction digits than the value can hold exactly.
    case tooManyFractionDigits(found: Int, allowed: Int)
    /// More than `DecimalText.maxIntegerDigits` significant digits before the point.
    case tooLarge
}
