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
    }
}
