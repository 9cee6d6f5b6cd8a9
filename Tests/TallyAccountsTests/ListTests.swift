import Foundation
import TallyProtocol
import Testing

@Suite struct ListTests {
    @Test func pagesComeInCreationOrderWithAnOpaqueCursor() throws {
        let harness = try AccountsHarness()
        for index in 1...7 { try harness.create("Account \(index)") }
        try harness.create("Someone else's", owner: "bo")

        let first = try harness.call("accounts.list", ["limit": 3])
        #expect(first["accounts"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["Account 1", "Account 2", "Account 3"])
        let cursor = try #require(first["next_cursor"]?.stringValue)
        #expect(!cursor.contains("3"), "the cursor is opaque: \(cursor)")

        let second = try harness.call("accounts.list", ["limit": 3, "cursor": .string(cursor)])
        #expect(second["accounts"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["Account 4", "Account 5", "Account 6"])
        // A change between pages neither repeats nor skips the others.
        try harness.call("accounts.delete", ["id": 7])
        try harness.create("Account 9")
        let third = try harness.call("accounts.list", ["limit": 3, "cursor": second["next_cursor"] ?? .null])
        #expect(third["accounts"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["Account 9"])
        #expect(third["next_cursor"] == nil, "the last page has no next_cursor")
        #expect(third.objectValue?.keys.sorted() == ["accounts"])
    }

    @Test func theDefaultLimitIs50AndAFullLastPageSaysSo() throws {
        let harness = try AccountsHarness()
        for index in 1...51 { try harness.create("A\(index)") }
        let first = try harness.call("accounts.list", [:])
        #expect(first["accounts"]?.arrayValue?.count == 50)
        let second = try harness.call("accounts.list", ["cursor": first["next_cursor"] ?? .null])
        #expect(second["accounts"]?.arrayValue?.count == 1)
        #expect(second["next_cursor"] == nil)
        let exact = try harness.call("accounts.list", ["limit": 51])
        #expect(exact["next_cursor"] == nil, "no empty page after a page that ends the list")
    }

    @Test func anOwnerWithoutAccountsGetsAnEmptyList() throws {
        let harness = try AccountsHarness()
        #expect(try harness.call("accounts.list", [:], as: "nobody") == ["accounts": []])
    }

    @Test func limitsAndCursorsAreChecked() throws {
        let harness = try AccountsHarness()
        for limit in [0, 101, -1] as [JSONValue] {
            #expect(harness.error("accounts.list", ["limit": limit]) == TallyError(
                .invalidArgument, "limit must be a whole number from 1 to 100", field: "args.limit"))
        }
        for cursor in ["nope", "", "YWZ0ZXI6eA", String(repeating: "A", count: 100)] {
            let error = harness.error("accounts.list", ["cursor": .string(cursor)])
            #expect(error?.field == "args.cursor", "\(cursor)")
            #expect(error?.message.contains("next_cursor") == true)
        }
        #expect(harness.error("accounts.list", ["page": 2])?.field == "args.page")
        #expect(harness.error("accounts.list", [:], as: nil)?.code == .unauthenticated)
    }
}
