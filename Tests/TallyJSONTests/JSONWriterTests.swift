import Foundation
import TallyTesting
import Testing

@testable import TallyJSON
@testable import TallyProtocol

/// `TallyJSON` must write exactly the bytes Foundation's `JSONEncoder` writes with sorted keys,
/// slashes unescaped and snake_case keys (what Tally wrote with it before): replies, stored
/// results and files are byte-for-byte stable, and the contract says so.
@Suite struct JSONWriterTests {
    /// Foundation's encoder set up as Tally's wire format: the reference `TallyJSON` is held to.
    static let foundation: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return encoder
    }()

    private func expectSameBytes<T: Encodable>(_ value: T, _ comment: String = "") throws {
        let expected = try Self.foundation.encode(value)
        let actual = try TallyJSON.encode(value)
        #expect(
            actual == expected,
            "\(comment)\nJSONEncoder: \(String(decoding: expected, as: UTF8.self))\nTallyJSON:   \(String(decoding: actual, as: UTF8.self))")
    }

    private struct Bill: Encodable {
        struct Part: Encodable {
            let base: String
            let tip: String
        }

        let currency: String
        let tipBase: String
        let split: Int
        let rounded: Bool
        let note: String?
        let missing: String?
        let parts: [Part]
        let money: Int128
        let ratio: Double
        let labels: [String: Int]
        let nested: [[Int]]
        let requestID: String
        let previousListID: Int
        let p50Ms: Double?

        enum CodingKeys: String, CodingKey {
            case currency, tipBase, split, rounded, note, missing, parts, money, ratio, labels, nested, requestID, previousListID, p50Ms
        }

        func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(currency, forKey: .currency)
            try container.encode(tipBase, forKey: .tipBase)
            try container.encode(split, forKey: .split)
            try container.encode(rounded, forKey: .rounded)
            try container.encode(note, forKey: .note)
            try container.encodeIfPresent(missing, forKey: .missing)
            try container.encode(parts, forKey: .parts)
            try container.encode(money, forKey: .money)
            try container.encode(ratio, forKey: .ratio)
            try container.encode(labels, forKey: .labels)
            try container.encode(nested, forKey: .nested)
            try container.encode(requestID, forKey: .requestID)
            try container.encode(previousListID, forKey: .previousListID)
            try container.encode(p50Ms, forKey: .p50Ms)
        }
    }

    @Test func writesStructsLikeJSONEncoder() throws {
        try expectSameBytes(Bill(
            currency: "USD", tipBase: "84.00", split: 3, rounded: true, note: nil, missing: nil,
            parts: [.init(base: "28.00", tip: "5.04"), .init(base: "28.00", tip: "5.04")], money: -170_141_183_460_469_231_731_687_303_715_884_105_728,
            ratio: 0.1, labels: ["b": 2, "a": 1, "B": 3, "a10": 4, "a9": 5, "é": 6, "_": 7, "USD": 8, "en_GB": 9], nested: [[1, 2], [], [3]],
            requestID: "r-1", previousListID: 7, p50Ms: 1.5))
    }

    /// A key encoded twice (a custom `encode(to:)` may): Foundation keeps the last value.
    private struct Twice: Encodable {
        enum Keys: String, CodingKey { case b, a }
        func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode("first", forKey: .b)
            try container.encode(1, forKey: .a)
            try container.encode("second", forKey: .b)
        }
    }

    @Test func aKeyEncodedTwiceKeepsItsLastValue() throws {
        try expectSameBytes(Twice())
        try expectSameBytes([Twice(), Twice()])
    }

    @Test func writesFoundationTypesLikeJSONEncoder() throws {
        try expectSameBytes(["when": Date(timeIntervalSince1970: 1_700_000_000.25)])
        try expectSameBytes(["data": Data([0, 1, 2, 255])])
        try expectSameBytes(["url": URL(string: "https://example.com/a/b?c=d")!])
        try expectSameBytes(["decimal": Decimal(string: "12.50")!])
        try expectSameBytes([1.0, 0.1, 1e20, 1e-7, -0.0, 123_456_789.125, 5e-324])
        try expectSameBytes([Float(0.1), Float(3)])
        try expectSameBytes([UInt64.max, 0, 7])
        try expectSameBytes(TallyError(.invalidArgument, "a \"quoted\"\nmessage", field: "args.x"))
    }

    /// A number that is not finite has no JSON: both refuse it, in a `JSONValue` too (stored
    /// results and events are written with `TallyJSON`, and a change that cannot be written must
    /// fail, not store `null`).
    @Test func refusesWhatJSONEncoderRefuses() {
        for value: JSONValue in [.number(.nan), ["a": [.number(.infinity)]], [.number(-.infinity)]] {
            #expect(throws: (any Error).self) { try Self.foundation.encode(value) }
            #expect(throws: (any Error).self) { try TallyJSON.encode(value) }
        }
        #expect(throws: (any Error).self) { try TallyJSON.encode([Double.nan]) }
    }

    @Test func writesRandomValuesLikeJSONEncoder() throws {
        var random = SplitMix64(seed: 0x0E4C_0DE5)
        for round in 0..<500 {
            try expectSameBytes(JSONValue.random(using: &random, depth: 4), "round \(round)")
        }
    }

    @Test func errorsAndRepliesAreWrittenAsBefore() throws {
        let error = TallyError(.notFound, "no \u{1}such \"thing\" /here", field: "args.items[2]")
        var written: [UInt8] = []
        error.write(into: &written)
        #expect(Data(written) == (try Self.foundation.encode(error)))
        let reply = Reply.failure(id: "r/1\n", error: error)
        #expect(String(decoding: reply, as: UTF8.self).hasPrefix(#"{"id":"r/1\n","ok":false,"error":{"code":"not_found""#))
    }
}
