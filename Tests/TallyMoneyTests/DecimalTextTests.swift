import Testing
import TallyMoney

@Suite struct DecimalTextTests {
    @Test func readsPlainDecimalsExactly() throws {
        #expect(try DecimalText.parse("84", scale: 2) == 8400)
        #expect(try DecimalText.parse("84.5", scale: 2) == 8450)
        #expect(try DecimalText.parse("84.50", scale: 2) == 8450)
        #expect(try DecimalText.parse("0.07", scale: 2) == 7)
        #expect(try DecimalText.parse("007.10", scale: 2) == 710)
        #expect(try DecimalText.parse("8.875", scale: 4) == 88_750)
        #expect(try DecimalText.parse("1500", scale: 0) == 1500)
        #expect(try DecimalText.parse("999999999999.99", scale: 2) == 99_999_999_999_999)
        #expect(try DecimalText.parse("0000000000000001", scale: 2) == 100)
    }

    @Test(arguments: ["", ".5", "5.", "-1", "+1", "1e3", " 1", "1 ", "1,000", "1.2.3", "١٢", "0x10", "1_000", ".", "NaN"])
    func refusesAnythingButDigitsAndOnePoint(_ text: String) {
        #expect(throws: DecimalTextError.malformed) { try DecimalText.parse(text, scale: 2) }
    }

    @Test func refusesMoreFractionDigitsThanTheScale() {
        #expect(throws: DecimalTextError.tooManyFractionDigits(found: 3, allowed: 2)) { try DecimalText.parse("1.234", scale: 2) }
        #expect(throws: DecimalTextError.tooManyFractionDigits(found: 3, allowed: 2)) { try DecimalText.parse("1.230", scale: 2) }
        #expect(throws: DecimalTextError.tooManyFractionDigits(found: 1, allowed: 0)) { try DecimalText.parse("1500.0", scale: 0) }
    }

    @Test func refusesAbsurdMagnitudes() {
        #expect(throws: DecimalTextError.tooLarge) { try DecimalText.parse("1000000000000", scale: 2) }
        #expect(throws: DecimalTextError.tooLarge) { try DecimalText.parse(String(repeating: "9", count: 40), scale: 0) }
    }

    @Test func writesExactlyTheScaleDigits() {
        #expect(DecimalText.format(1512, scale: 2) == "15.12")
        #expect(DecimalText.format(5, scale: 2) == "0.05")
        #expect(DecimalText.format(0, scale: 2) == "0.00")
        #expect(DecimalText.format(1500, scale: 0) == "1500")
        #expect(DecimalText.format(1500, scale: 3) == "1.500")
        #expect(DecimalText.format(-5, scale: 2) == "-0.05")
        #expect(DecimalText.format(-1512, scale: 0) == "-1512")
        #expect(DecimalText.format(7, scale: 4) == "0.0007")
    }

    /// Past 64 bits the digits come from 128-bit arithmetic: the same text, to the last digit.
    @Test func writesEvery128BitValue() {
        #expect(DecimalText.format(Int128.max, scale: 0) == "170141183460469231731687303715884105727")
        #expect(DecimalText.format(Int128.min, scale: 4) == "-17014118346046923173168730371588410.5728")
        #expect(DecimalText.format(Int128(UInt64.max), scale: 2) == "184467440737095516.15")
        #expect(DecimalText.format(Int128(UInt64.max) + 1, scale: 2) == "184467440737095516.16")
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let value = Int128(Int64.random(in: .min ... .max, using: &generator)) * Int128(Int64.random(in: -1_000...1_000, using: &generator))
            let scale = Int.random(in: 0...DecimalText.maxScale, using: &generator)
            let digits = String(value.magnitude)
            let padded = String(repeating: "0", count: max(0, scale + 1 - digits.count)) + digits
            let expected = (value < 0 ? "-" : "") + (scale == 0 ? padded : padded.dropLast(scale) + "." + padded.suffix(scale))
            #expect(DecimalText.format(value, scale: scale) == expected, "\(value) at scale \(scale)")
        }
    }
}
