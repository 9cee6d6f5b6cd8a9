import TallyTerminal
import Testing

@Suite struct StyledLineTests {
    @Test func aLineIsCutToTheScreensWidthAndItsStyleIsResetAfterIt() {
        #expect(StyledLine(text: "gateway ok").rendered(width: 80) == "gateway ok")
        #expect(StyledLine(text: "gateway ok").rendered(width: 7) == "gateway")
        #expect(StyledLine(text: "no worker", style: .alarm).rendered(width: 2) == "\u{1B}[31mno\u{1B}[0m")
    }

    @Test func widthCountsCharactersNotBytes() {
        // A cut through a multi-byte character would leave the terminal half a character.
        #expect(StyledLine(text: "Zürich café").rendered(width: 9) == "Zürich ca")
    }
}
