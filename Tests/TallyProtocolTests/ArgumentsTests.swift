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
}
