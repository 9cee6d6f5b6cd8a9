import Foundation
import Testing

@testable import TallyCalc
@testable import TallyJSON
@testable import TallyProtocol

/// `calc.tip`'s reply writes itself (`JSONSelfWriting`), a second way to write it beside its
/// `Encodable` form; the two must agree byte for byte on every shape the reply takes.
@Suite struct TipReplyWritingTests {
    /// The reply as the `Encodable` form writes it, through the tree `TallyJSON` builds.
    private func throughEncodable(_ result: TipResult) throws -> [UInt8] {
        var out: [UInt8] = []
        try JSONNode.make(result, parent: nil, key: nil).write(into: &out)
        return out
    }

    private func selfWritten(_ result: TipResult) throws -> [UInt8] {
        var out: [UInt8] = []
        try TallyJSON.encode(result, into: &out)
        return out
    }

    @Test func agreesWithTheEncodableFormOnEveryShape() throws {
        var generator = SystemRandomNumberGenerator()
        // Amounts as the worker writes them, and strings that need escaping (the writer must
        // escape like the Encodable form, not assume numerals).
        let texts = ["0", "84.00", "-1.5", "1234567890123456789012345.678", "", "a\"b\\c", "\u{1}\n\t", "日本", "/"]
        func text() -> String { texts.randomElement(using: &generator)! }
        for _ in 0..<500 {
            let people = Int.random(in: 0...5, using: &generator)
            let bill = TipBillFigures(
                currency: ["USD", "JPY", "BHD", "\u{7f}"].randomElement(using: &generator)!,
                amount: text(), tipBase: text(),
                rounding: TipRounding.allCases.randomElement(using: &generator)!,
                split: [0, 1, 7, 10, -3, Int.max, Int.min].randomElement(using: &generator)!)
            let result = TipResult(
                bill: bill, tip: text(), total: text(), effectiveTipPercent: text(),
                perPerson: (0..<people).map { _ in TipResult.PersonPart(base: text(), tip: text(), total: text()) })
            let expected = try throughEncodable(result)
            let actual = try selfWritten(result)
            #expect(actual == expected, "\(String(decoding: actual, as: UTF8.self)) vs \(String(decoding: expected, as: UTF8.self))")
        }
    }

    /// Through the worker, as a client reads it, where the reply is now written by itself.
    @Test func readsAsAReplyThroughTheWorker() throws {
        let result = try calc("calc.tip", ["amount": "100.00", "currency": "USD", "tip_percent": "15", "split": 3])
        #expect(result["per_person"]?.arrayValue?.count == 3)
        #expect(result["effective_tip_percent"] == "15.00")
        #expect(result["tip_base"] == "100.00")
    }
}
