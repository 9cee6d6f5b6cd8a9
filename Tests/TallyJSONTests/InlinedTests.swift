import Foundation
import Testing

@testable import TallyJSON

/// `@Inlined`: a member's own members written beside its holder's, in one object, wherever the
/// holder stands (at the top, in an array, under a key).
@Suite struct InlinedTests {
    private struct Person: Encodable {
        let userID: String
        let name: String
    }

    private struct Entry: Encodable {
        let rank: Int
        @Inlined var person: Person
        let points: Int
        let note: String?
    }

    private struct Board: Encodable {
        let entries: [Entry]
        let best: Entry?
    }

    @Test func theMembersStandBesideTheHolders() throws {
        let entry = Entry(rank: 1, person: Person(userID: "u-1", name: "Ann"), points: 7, note: nil)
        #expect(String(decoding: try TallyJSON.encode(entry), as: UTF8.self) == #"{"name":"Ann","points":7,"rank":1,"user_id":"u-1"}"#)
    }

    @Test func aHolderInAnArrayOrUnderAKeyInlinesToo() throws {
        let entry = Entry(rank: 2, person: Person(userID: "u-2", name: "Bo"), points: 3, note: "n")
        let text = String(decoding: try TallyJSON.encode(Board(entries: [entry], best: entry)), as: UTF8.self)
        let one = #"{"name":"Bo","note":"n","points":3,"rank":2,"user_id":"u-2"}"#
        #expect(text == #"{"best":\#(one),"entries":[\#(one)]}"#)
    }

    private struct Wrapped: Encodable {
        @Inlined var count: Int
    }

    @Test func aMemberThatIsNoObjectIsAnError() {
        #expect(throws: EncodingError.self) { try TallyJSON.encode(Wrapped(count: 3)) }
    }
}
