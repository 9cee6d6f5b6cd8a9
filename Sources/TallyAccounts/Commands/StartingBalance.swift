import TallyMoney
import TallyProtocol

/// An account's starting balance: a signed decimal as typed into a field of at most 22
/// characters, held as `Int128` minor units. (The seed sized the field for the 10²⁰ banknotes of
/// hyperinflation; 128 bits hold every value 22 characters can write, in any currency's minor
/// units, with room to spare, so no balance that fits the field is refused for its size.)
///
/// `DecimalText` reads the unsigned, 12-digit amounts of a bill; a balance may be negative (a
/// debt) and much larger, so it has its own reader with the same spirit: exact, no rounding, no
/// locale, more decimal places than the currency has is an error.
enum StartingBalance {
    static let longestText = 22
    /// Balances are kept within ±`Int128.max` minor units, so negating one never overflows.
    static let largestMinor = Int128.max

    /// The balance as written, or nil when it is absent, null or blank: the caller reports that
    /// with the word list's message. A JSON integer is read as its digits.
    static func text(_ args: Arguments) throws(TallyError) -> String? {
        guard let text = try args.optionalDecimalText("starting_balance") else { return nil }
        return text.allSatisfy(\.isWhitespace) ? nil : text
    }

    /// Reads `text` into minor units of `currency`.
    static func parse(_ text: String, in currency: Currency, field: String) throws(TallyError) -> Int128 {
        guard text.count <= longestText else {
            throw .invalidArgument("starting_balance must be at most \(longestText) characters long; this one has \(text.count)", field: field)
        }
        let bytes = Array(text.utf8)
        let negative = bytes.first == UInt8(ascii: "-")
        let unsigned = negative ? bytes.dropFirst() : bytes[...]
        let point = unsigned.firstIndex(of: UInt8(ascii: "."))
        let whole = unsigned[..<(point ?? unsigned.endIndex)]
        let fraction = point.map { unsigned[($0 + 1)...] } ?? []
        guard !whole.isEmpty, whole.allSatisfy(isDigit), point == nil || (!fraction.isEmpty && fraction.allSatisfy(isDigit)) else {
            throw .invalidArgument(
                "starting_balance must be a decimal such as \"\(currency.format(1250 * currency.minorPerUnit))\" or \"\(currency.format(-80 * currency.minorPerUnit))\": an optional minus sign, digits, and an optional point with more digits; no plus sign, exponent, spaces or thousands separators",
                field: field)
        }
        guard fraction.count <= currency.minorUnits else {
            let rule = currency.minorUnits == 0 ? "are whole numbers" : "have at most \(currency.minorUnits) decimal places"
            throw .invalidArgument(
                "starting_balance is over-precise: \(currency.code) amounts \(rule), and it has \(fraction.count)", field: field)
        }
        var magnitude: Int128? = 0
        for digit in whole + fraction { magnitude = magnitude.flatMap { appending(digit, to: $0) } }
        for _ in fraction.count..<currency.minorUnits { magnitude = magnitude.flatMap { scaled($0, by: 1) } }
        guard let magnitude else { throw tooLarge(currency, field: field) }
        return negative ? -magnitude : magnitude
    }

    /// The same decimal value in `target`'s minor units (12.50 USD → 12.500 BHD is 12500), or nil
    /// when `target` cannot hold it: more places than it has (12.50 in JPY), or too large.
    static func rescale(_ minor: Int128, from source: Currency, to target: Currency) -> Int128? {
        let shift = target.minorUnits - source.minorUnits
        if shift >= 0 { return scaled(minor, by: shift) }
        let divisor = DecimalText.powerOfTen(-shift)
        return minor % divisor == 0 ? minor / divisor : nil
    }

    static func tooLarge(_ currency: Currency, field: String) -> TallyError {
        .invalidArgument(
            "starting_balance does not fit: \(currency.code) balances run from \(currency.format(-largestMinor)) to \(currency.format(largestMinor))",
            field: field)
    }

    /// `value` × 10^`places`, or nil past ±`largestMinor`.
    private static func scaled(_ value: Int128, by places: Int) -> Int128? {
        var result = value
        for _ in 0..<places {
            let (product, overflow) = result.multipliedReportingOverflow(by: 10)
            guard !overflow else { return nil }
            result = product
        }
        return result
    }

    private static func appending(_ digit: UInt8, to value: Int128) -> Int128? {
        guard let shifted = scaled(value, by: 1) else { return nil }
        let (sum, overflow) = shifted.addingReportingOverflow(Int128(digit - UInt8(ascii: "0")))
        return overflow ? nil : sum
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
