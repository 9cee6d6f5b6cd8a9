import Foundation
import Testing

import TallyJSON

/// `TallyJSON.decode`: what it reads, the keys it looks for, and the errors that tell a caller
/// which field is wrong.
@Suite struct JSONDecodingTests {
    private struct Line: Codable, Equatable {
        let itemID: Int64
        let name: String
        let unit: String?
        let quantity: Int
    }

    private struct Order: Codable, Equatable {
        let requestID: String
        let previousListID: Int64?
        let lines: [Line]
        let tags: [String: String]
        let nested: [[Int]]
        let ratio: Double
        let flag: Bool
        let note: String?
    }

    private func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try TallyJSON.decode(type, from: Data(text.utf8))
    }

    /// The coding path of a decoding error as `a.b[2].c`.
    private func path(of error: any Error) -> String {
        let context: DecodingError.Context
        switch error as? DecodingError {
        case .typeMismatch(_, let c)?, .valueNotFound(_, let c)?, .dataCorrupted(let c)?: context = c
        case .keyNotFound(let key, let c)?:
            context = DecodingError.Context(codingPath: c.codingPath + [key], debugDescription: c.debugDescription)
        default: return "not a DecodingError: \(error)"
        }
        return context.codingPath.reduce("") { text, key in
            if let index = key.intValue { return text + "[\(index)]" }
            return text.isEmpty ? key.stringValue : text + "." + key.stringValue
        }
    }

    @Test func readsNestedContainersWithSnakeCaseKeys() throws {
        let order = try decode(Order.self, """
            {"request_id":"r-1","previous_list_id":7,"lines":[{"item_id":1,"name":"Milk","unit":"l","quantity":2},
            {"item_id":2,"name":"Bread","quantity":1}],"tags":{"USD":"dollar","en_GB":"x"},"nested":[[1,2],[]],
            "ratio":1.5,"flag":true}
            """)
        #expect(order == Order(
            requestID: "r-1", previousListID: 7,
            lines: [Line(itemID: 1, name: "Milk", unit: "l", quantity: 2), Line(itemID: 2, name: "Bread", unit: nil, quantity: 1)],
            tags: ["USD": "dollar", "en_GB": "x"], nested: [[1, 2], []], ratio: 1.5, flag: true, note: nil))
    }

    @Test func whatItWritesReadsBack() throws {
        let order = Order(
            requestID: "r/2", previousListID: nil, lines: [Line(itemID: .max, name: "é\n\"", unit: nil, quantity: .min)],
            tags: ["B": "b", "a": ""], nested: [], ratio: -0.25, flag: false, note: "n")
        #expect(try TallyJSON.decode(Order.self, from: TallyJSON.encode(order)) == order)
        #expect(try TallyJSON.decode(Order.self, from: JSONReader.parse(TallyJSON.encode(order))) == order)
    }

    @Test(arguments: [
        ("userID", "user_id"), ("traceID", "trace_id"), ("previousListID", "previous_list_id"), ("p50Ms", "p50_ms"),
        ("URLPath", "url_path"), ("name", "name"), ("minor_units", "minor_units"), ("requestid", "requestid"),
        ("fromItemID", "from_item_id"), ("deadlineMs", "deadline_ms"), ("ID", "id"), ("sessionIDs", "session_i_ds"),
    ])
    func keysAreSnakeCaseWithAcronymsAsOneWord(name: String, key: String) {
        #expect(JSONKeyNaming.key(name) == key)
    }

    @Test func optionalsAreNilWhenAbsentOrNull() throws {
        struct Maybe: Decodable { let a: Int?; let b: String?; let c: [Int]? }
        let absent = try decode(Maybe.self, "{}")
        #expect(absent.a == nil && absent.b == nil && absent.c == nil)
        let null = try decode(Maybe.self, #"{"a":null,"b":null,"c":null}"#)
        #expect(null.a == nil && null.b == nil && null.c == nil)
        #expect(try decode(Maybe.self, #"{"a":1,"b":"x","c":[2]}"#).c == [2])
    }

    @Test func aMissingKeyIsNamedAsOnTheWire() {
        #expect {
            try decode(Line.self, #"{"name":"Milk","quantity":1}"#)
        } throws: { error in
            guard case .keyNotFound(let key, _) = error as? DecodingError else { return false }
            return key.stringValue == "item_id"
        }
    }

    @Test func aTypeMismatchNamesItsPath() throws {
        let text = #"{"request_id":"r","lines":[{"item_id":1,"name":"a","quantity":1},{"item_id":"2","name":"b","quantity":1}],"#
            + #""tags":{},"nested":[],"ratio":1,"flag":true}"#
        do {
            _ = try decode(Order.self, text)
            Issue.record("decoded a string as an integer")
        } catch {
            #expect(path(of: error) == "lines[1].item_id")
            guard case .typeMismatch(let type, let context)? = error as? DecodingError else {
                Issue.record("\(error)")
                return
            }
            #expect(ObjectIdentifier(type) == ObjectIdentifier(Int64.self))
            #expect(context.debugDescription == "Expected to decode Int64 but found a string instead.")
        }
        #expect(throws: DecodingError.self) { try decode(Order.self, text.replacingOccurrences(of: #""flag":true"#, with: #""flag":null"#)) }
    }

    @Test func nullWhereAValueIsNeededIsValueNotFound() {
        #expect {
            try decode(Line.self, #"{"item_id":1,"name":null,"quantity":1}"#)
        } throws: { error in
            guard case .valueNotFound(_, let context) = error as? DecodingError else { return false }
            return context.codingPath.map(\.stringValue) == ["name"]
        }
    }

    @Test func integersAreReadExactlyWithinTheirBounds() throws {
        #expect(try decode([Int64].self, "[9223372036854775807,-9223372036854775808]") == [.max, .min])
        #expect(try decode([UInt8].self, "[0,255]") == [0, 255])
        #expect(try decode([Int].self, "[5e3, 5000.0]") == [5000, 5000])
        for (text, type) in [("[9223372036854775808]", [Int64].self as any Decodable.Type), ("[256]", [UInt8].self),
                             ("[-1]", [UInt].self), ("[1.5]", [Int].self), ("[128]", [Int8].self)] {
            #expect(throws: DecodingError.self, "\(text) as \(type)") { try TallyJSON.decode(type, from: Data(text.utf8)) }
        }
        #expect(try decode([Double].self, "[1, 1.5, -2e-3]") == [1, 1.5, -0.002])
    }

    @Test func notJSONIsDataCorrupted() {
        #expect {
            try decode([Int].self, "[1,")
        } throws: { error in
            guard case .dataCorrupted(let context) = error as? DecodingError else { return false }
            return context.codingPath.isEmpty
        }
    }

    /// A type that reads itself through an unkeyed container, counting down to its end.
    private struct Pair: Decodable, Equatable {
        let first: String
        let rest: [Int]

        init(first: String, rest: [Int]) {
            self.first = first
            self.rest = rest
        }

        init(from decoder: Decoder) throws {
            var container = try decoder.unkeyedContainer()
            first = try container.decode(String.self)
            var rest: [Int] = []
            while !container.isAtEnd {
                if try container.decodeNil() { continue }
                rest.append(try container.decode(Int.self))
            }
            self.rest = rest
            #expect(container.count == 4)
        }
    }

    @Test func unkeyedContainersReadInOrderToTheirEnd() throws {
        #expect(try decode(Pair.self, #"["a",1,null,2]"#) == Pair(first: "a", rest: [1, 2]))
        #expect(throws: DecodingError.self) { try decode(Pair.self, #"{"first":"a"}"#) }
    }

    private class Base: Codable {
        let id: Int
        init(id: Int) { self.id = id }
    }

    private final class Derived: Base, @unchecked Sendable {
        let extraName: String

        init(id: Int, extraName: String) {
            self.extraName = extraName
            super.init(id: id)
        }

        enum Keys: String, CodingKey { case extraName }

        required init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            extraName = try container.decode(String.self, forKey: .extraName)
            try super.init(from: container.superDecoder())
        }

        override func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(extraName, forKey: .extraName)
            try super.encode(to: container.superEncoder())
        }
    }

    @Test func superDecoderReadsWhatSuperEncoderWrote() throws {
        let json = try TallyJSON.encode(Derived(id: 3, extraName: "x"))
        #expect(String(decoding: json, as: UTF8.self) == #"{"extra_name":"x","super":{"id":3}}"#)
        let decoded = try TallyJSON.decode(Derived.self, from: json)
        #expect(decoded.id == 3 && decoded.extraName == "x")
    }

    /// Enums with associated values decode by `allKeys`, which maps the keys present back to names.
    private enum Shape: Codable, Equatable {
        case circle(radius: Int)
        case namedBox(sideLength: Int)
    }

    @Test func enumsWithAssociatedValuesReadBack() throws {
        for shape in [Shape.circle(radius: 2), .namedBox(sideLength: 3)] {
            let json = try TallyJSON.encode(shape)
            #expect(try TallyJSON.decode(Shape.self, from: json) == shape, "\(String(decoding: json, as: UTF8.self))")
        }
        #expect(String(decoding: try TallyJSON.encode(Shape.namedBox(sideLength: 3)), as: UTF8.self) == #"{"named_box":{"side_length":3}}"#)
    }

    @Test func foundationTypesReadAsTheyAreWritten() throws {
        struct Values: Codable, Equatable {
            let data: Data
            let url: URL
            let decimal: Decimal
            let date: Date
            let float: Float
        }
        let values = Values(
            data: Data([0, 1, 255]), url: URL(string: "https://example.com/a?b=c")!, decimal: Decimal(string: "12.5")!,
            date: Date(timeIntervalSinceReferenceDate: 1_000.5), float: 0.25)
        #expect(try TallyJSON.decode(Values.self, from: TallyJSON.encode(values)) == values)
    }

    @Test func aJSONValueIsHandedOverAsItIs() throws {
        struct Holder: Decodable { let args: JSONValue }
        let holder = try decode(Holder.self, #"{"args":{"a":[1,"b",null,{"C":true}]}}"#)
        #expect(holder.args == ["a": [1, "b", nil, ["C": true]]])
    }
}
