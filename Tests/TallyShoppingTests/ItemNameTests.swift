import Testing

@testable import TallyShopping

/// `ItemName.key` writes ASCII names itself and leaves the rest to Foundation; the two ways must
/// agree, or one item would be two depending on how its name was typed.
@Suite struct ItemNameTests {
    @Test func asciiNamesGetTheKeyFoundationGivesThem() {
        let every = (0..<128).map { String(UnicodeScalar(UInt8($0))) }
        var names = every + every.map { " x\($0)Y " } + ["", " ", "\r\n", " Whole  MILK ", "a\r\nb", "\tTab\u{0B}and\u{0C}feed\r"]
        // Mostly letters and whitespace, so runs of spaces, edges and case are all exercised.
        let alphabet = Array("aAzZ09 \t\n\r\u{0B}\u{0C}-_~@[`{\u{7F}\u{01}")
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            names.append(String((0..<Int.random(in: 0...12, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }))
        }
        for name in names {
            #expect(ItemName.key(name) == ItemName.unicodeKey(name), "\(Array(name.utf8))")
        }
    }

    @Test func otherNamesAreKeyedByFoundation() {
        #expect(ItemName.key(" Crème  BRÛLÉE ") == "crème brûlée")
        #expect(ItemName.key("Cre\u{300}me") == ItemName.key("Crème"))
        #expect(ItemName.key("STRASSE\u{A0}Straße") == ItemName.unicodeKey("STRASSE\u{A0}Straße"))
    }
}
