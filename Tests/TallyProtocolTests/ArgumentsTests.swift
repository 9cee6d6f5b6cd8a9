import Foundation
import Testing

@testable import TallyProtocol

@Suite struct ArgumentsTests {
    /// The error `body` throws, or nil if it succeeds.
    private func failure(_ body: () throws -> Void) -> TallyError? {
        do {
            try body()
            return nil
        } catch {
            return error as? TallyError
        }
    }

    @Test func errorsNameTheFieldPath() throws {
        let args = try Arguments(["tax": ["rate": .number(8.5)], "items": [["price": true]], "split": 0, "name": 3])
        let fraction = failure { _ = try args.optionalObject("tax")?.decimalText("rate") }
        #expect(fraction?.field == "args.tax.rate")
        #expect(fraction?.message.contains("decimal string") == true)
        let item = try Arguments(try #require(args.optionalArray("items")?.first), path: "args.items[0]")
        #expect(failure { _ = try item.decimalText("price") }?.field == "args.items[0].price")
        #expect(failure { _ = try args.integer("split", in: 1...50) }?.field == "args.split")
        #expect(failure { _ = try args.string("name") }?.message.contains("must be a string") == true)
        #expect(failure { _ = try args.string("missing") }?.message.contains("required") == true)
        #expect(failure { _ = try args.integer("split", in: 0...50) } == nil)
    }

    @Test func unknownKeysAreRefused() throws {
        let args = try Arguments(["amount": "1", "tip_pct": "5"])
        let error = failure { try args.allowOnly(["amount", "tip_percent"]) }
        #expect(error?.field == "args.tip_pct")
        #expect(error?.message.contains("tip_percent") == true)
        let none = failure { try args.allowOnly([]) }
        #expect(none?.message.contains("args takes no fields") == true, "\(String(describing: none))")
    }

    @Test func integersStayExact() throws {
        let value = try JSONReader.parse(Data("[9007199254740993, 1.5, true, null]".utf8))
        #expect(value == [.integer(9_007_199_254_740_993), .number(1.5), true, nil])
        #expect(try Arguments.decimalText(.integer(12), field: "args.x") == "12")
    }

    @Test func theCatalogKnowsWhatIsSafeToRetry() {
        let catalog = CommandCatalog(
            CommandCatalog.gateway + [
                CommandDescription(name: "calc.tip", kind: .query, summary: "a query"),
                CommandDescription(name: "ledger.post", kind: .change, summary: "a change"),
            ])
        #expect(catalog.isSafeToRetry(command: "calc.tip", idempotencyKey: nil))
        #expect(!catalog.isSafeToRetry(command: "ledger.post", idempotencyKey: nil))
        #expect(catalog.isSafeToRetry(command: "ledger.post", idempotencyKey: "k"))
        #expect(!catalog.isSafeToRetry(command: "unknown.thing", idempotencyKey: nil), "a command nobody declared is a change")
        #expect(catalog.workerServices == ["calc", "ledger"])
    }

    /// Text a person typed, read by `TypedText` (under `text` and accounts' names): the
    /// printable-ASCII shortcut and the general rule (Foundation's trimming, characters counted
    /// as people see them, Unicode's control category) give the same text, count and controls,
    /// and `text` the same error, for every input.
    @Test func textReadsAlikeOnEitherPath() throws {
        let inputs = [
            "Milk", "  Milk  ", " a b ", "", " ", "     ", String(repeating: "x", count: 8), String(repeating: "x", count: 9),
            " \(String(repeating: "y", count: 8)) ", "tab\there", "line\nbreak", "\r\n", "\u{7F}", "del\u{7F}",
            "Crème brûlée", "  Crème ", "🇫🇷🇫🇷🇫🇷🇫🇷🇫🇷🇫🇷🇫🇷🇫🇷🇫🇷", "\u{A0}nbsp\u{A0}", "~!@#$%^&*()_+{}|:\"<>?",
        ]
        for input in inputs {
            let typed = TypedText(input), trimmed = input.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(typed.text == trimmed, "\(input.debugDescription)")
            #expect(typed.characters == trimmed.count, "\(input.debugDescription)")
            #expect(typed.hasControls == trimmed.unicodeScalars.contains { $0.properties.generalCategory == .control }, "\(input.debugDescription)")
            let args = try Arguments(["name": .string(input)])
            let read = Result { () throws(TallyError) in try args.text("name", longest: 8, what: "a name") }
            let general = Self.generalText(input, longest: 8)
            switch (read, general) {
            case (.success(let text), .success(let expected)):
                #expect(text == expected, "\(input.debugDescription)")
            case (.failure(let error), .failure(let expected)):
                #expect(error.message.hasPrefix(expected.message), "\(input.debugDescription): \(error.message)")
                #expect(error.field == "args.name")
            default:
                Issue.record("\(input.debugDescription): read \(read), the general rule \(general)")
            }
        }
        #expect(TypedText.printableASCII("  Milk  ") == "Milk")
        #expect(TypedText.printableASCII("Crème") == nil, "not ASCII: the general rule reads it")
        #expect(TypedText.printableASCII("a\tb") == nil, "a control character: the general rule refuses it")
    }

    /// The rule `text` documents, written the general way: the text, or how its error begins.
    private static func generalText(_ raw: String, longest: Int) -> Result<String, TallyError> {
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.isEmpty { return .failure(.invalidArgument("name must not be blank")) }
        if text.count > longest { return .failure(.invalidArgument("name must be at most \(longest) characters; this one has \(text.count)")) }
        if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return .failure(.invalidArgument("name must not contain control characters"))
        }
        return .success(text)
    }
}
