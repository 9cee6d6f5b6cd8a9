import Foundation
import TallyTesting
import Testing

@testable import TallyJSON

/// `JSONReader` must accept what Foundation's `JSONDecoder` accepts into a `JSONValue`, and read it
/// to the same value: it replaced Foundation on the request path, and no reply may change. It is
/// stricter only where Foundation accepts what is not JSON: the values of repeated keys, which
/// Foundation drops unchecked, and texts with a NUL byte.
@Suite struct JSONReaderTests {
    private func foundation(_ data: Data) -> JSONValue? { try? JSONDecoder().decode(JSONValue.self, from: data) }
    private func reader(_ data: Data) -> JSONValue? { try? JSONReader.parse(data) }

    private func expectAgreement(_ data: Data, _ comment: @autoclosure () -> String) {
        let expected = foundation(data)
        let actual = reader(data)
        #expect(actual == expected, "\(comment()): Foundation \(String(describing: expected)), JSONReader \(String(describing: actual))")
    }

    @Test(arguments: [
        // Structure
        #"{"v":"a"}"#, #" {"v":"a"} "#, "{\"v\":\"a\"}\n\n", "\u{feff}{\"v\":1}", #"{"v":"a"} x"#, #"{"v":"a",}"#, "[1,2,]",
        "[,]", "{,}", #"{"v":1,,}"#, #"[1,,2]"#, #"{"v":"a","v":"b"}"#, #"{"":1}"#, #"{"v" : 1 }"#, "{'v':1}", "", "  ",
        "{", "[", "]", "{}", "[]", "[[]]", #"{"a":{"b":{"c":[1,{"d":null}]}}}"#, "null", "true", "false", "tru", "nul",
        "5", "\"text\"", #"{"v":1} {}"#, "{\"v\":1}//c", "{\"v\"\t:\r\n1}", "{\"v\":1}\u{0}",
        // Numbers
        #"{"v":5000.0}"#, #"{"v":5e3}"#, #"{"v":1.5e1}"#, #"{"v":-0}"#, #"{"v":-0.0}"#, #"{"v":1E2}"#, #"{"v":1.0e0}"#,
        #"{"v":9223372036854775807}"#, #"{"v":-9223372036854775808}"#, #"{"v":9223372036854775808}"#,
        #"{"v":-9223372036854775809}"#, #"{"v":10000000000000000000000}"#, #"{"v":1.25}"#, #"{"v":84.5}"#, #"{"v":1e-2}"#,
        #"{"v":1e400}"#, #"{"v":-1e400}"#, #"{"v":1e-400}"#, #"{"v":01}"#, #"{"v":1.}"#, #"{"v":-}"#, #"{"v":.5}"#,
        #"{"v":+1}"#, #"{"v":NaN}"#, #"{"v":1e}"#, #"{"v":1e+}"#, #"{"v":0.1}"#, #"{"v":123456789012345678}"#,
        #"{"v":-86118236326000407.85}"#, #"{"v":86118236326000407.5}"#, #"{"v":-0.5}"#, #"{"v":9007199254740993.0}"#,
        // Found by fuzzing (`json`): below 2^53 a whole Double's value, not the text's integer part.
        #"{"v":3.9999999999999999999999999999999999999999999999999999999999999999999999990}"#, #"{"v":-7.99999999999999999}"#,
        #"{"v":9007199254740991.9999999}"#,
        // Found by fuzzing (`json`): from 2^53 up, the text read as a Decimal, truncated, while its
        // significand fits 64 bits; else the Double.
        #"{"v":999999999999999999.00000000000000000001}"#, #"{"v":999999999999999999.5}"#,
        #"{"v":999999999999999999.000000000000000000000000000000000000000000000001}"#,
        #"{"v":9999999999999999990e-1}"#, #"{"v":10000000000000000001e-1}"#, #"{"v":18446744073709551616e-1}"#,
        #"{"v":184467440737095516150e-2}"#, #"{"v":9223372036854775295.5}"#, #"{"v":-9223372036854775808.0}"#,
        #"{"v":-9223372036854775807.0}"#, #"{"v":99999999999999999999999999999999999999999e-23}"#, #"{"v":1e18}"#,
        // Strings
        #"{"v":"\ud800"}"#, #"{"v":"\udc00"}"#, #"{"v":"\ud83d\ude00"}"#, #"{"v":"\ud83d\u0041"}"#, "{\"v\":\"a\u{0}b\"}",
        #"{"v":"\u0000"}"#, "{\"v\":\"\t\"}", #"{"v":"\/"}"#, #"{"v":"\x"}"#, #"{"v":"\u00e9\u00E9é"}"#, #"{"v":"\u12"}"#,
        #"{"v":"\"\\\/\b\f\n\r\t"}"#, #"{"v":"日本語 ｽｲｽ"}"#, #"{"v":"unterminated}"#,
    ])
    func agreesWithFoundationOn(text: String) {
        expectAgreement(Data(text.utf8), text.debugDescription)
    }

    /// Found by fuzzing (`json`): a Double that Foundation reads from 2^53 up (its Decimal's
    /// significand past 64 bits) is written in its shortest form, which reads back, in Foundation
    /// as in `JSONReader`, as an integer: exactly the digits written, so the same Double.
    @Test func aWholeDoubleFrom2To53UpReadsBackAsAnIntegerOfTheSameDouble() throws {
        for text in ["999999999999999999.00000000000000000001", "999000001760907365.00000000000000000001"] {
            guard case .number(let double) = try JSONReader.parse(Data(text.utf8)) else {
                Issue.record("\(text) should read as a Double, as in Foundation")
                continue
            }
            let encoded = try TallyJSON.encode(JSONValue.number(double))
            let reread = try JSONReader.parse(encoded)
            #expect(reread == foundation(encoded))
            guard case .integer(let integer) = reread else {
                Issue.record("\(String(decoding: encoded, as: UTF8.self)) should read back as an integer")
                continue
            }
            #expect(Double(integer) == double)
        }
    }

    @Test func agreesOnInvalidUTF8() {
        for bytes: [UInt8] in [
            [0x22, 0xff, 0x22], [0x22, 0xC3, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],
            [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xE2, 0x82, 0xAC, 0x22], [0xff, 0x00, 0xfe, 0x01],
        ] {
            expectAgreement(Data(bytes), "\(bytes)")
        }
    }

    /// Found by fuzzing (`json`): Foundation drops the value of a repeated key without checking
    /// its strings (escapes, UTF-8) or its numbers' range; JSONReader checks every value, as the
    /// gateway must (a request whose text is not JSON is refused whole). With those values made
    /// valid, the two agree again.
    @Test func isStricterThanFoundationOnlyInTheValuesOfRepeatedKeys() {
        let samples: [(text: Data, valid: Data)] = [
            (Data(#"{"v":1,"v":"#.utf8) + Data([0x22, 0xD9, 0xD9, 0x22, 0x7D]), Data(#"{"v":1,"v":null}"#.utf8)),
            (Data(#"{"v":1,"v":"\x"}"#.utf8), Data(#"{"v":1,"v":null}"#.utf8)),
            (Data(#"{"v":1,"v":"\ud800"}"#.utf8), Data(#"{"v":1,"v":null}"#.utf8)),
            (Data(#"{"v":1,"w":[{"v":2,"v":1e999}]}"#.utf8), Data(#"{"v":1,"w":[{"v":2,"v":null}]}"#.utf8)),
        ]
        for (text, valid) in samples {
            let description = String(decoding: text, as: UTF8.self)
            #expect(foundation(text) != nil, "\(description)")
            #expect(reader(text) == nil, "\(description)")
            #expect(reader(valid) == foundation(text), "\(description)")
        }
    }

    /// Found by fuzzing (`json`): Foundation reads some texts with a NUL byte, erratically: one
    /// digit followed by a NUL as that digit (and `4 NUL NUL NUL 5` as 4, but not `4 NUL NUL`), and
    /// `{ NUL } NUL }` as an empty object. A NUL byte is never JSON, and JSONReader refuses them all.
    @Test func refusesTextsWithANulThatFoundationReads() {
        let cases: [([UInt8], JSONValue)] = [
            ([0x30, 0x00], 0), ([0x30, 0x00, 0x00, 0x00, 0x05], 0), ([0x37, 0x00], 7), ([0x34, 0x00, 0x00, 0x00, 0x05], 4),
            ([0x7B, 0x00, 0x7D, 0x00, 0x7D], [:]),
        ]
        for (bytes, value) in cases {
            #expect(foundation(Data(bytes)) == value, "\(bytes)")
            #expect(reader(Data(bytes)) == nil, "\(bytes)")
        }
    }

    /// Foundation's parser allows 512 levels. (`JSONSerialization` is asked: it shares the parser,
    /// and does not take seconds over a deep `JSONValue` as `JSONDecoder` does.)
    @Test func nestingIsLimitedLikeFoundation() {
        for depth in [511, 512, 513, 600] {
            let text = Data((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8)
            let foundation = (try? JSONSerialization.jsonObject(with: text, options: .fragmentsAllowed)) != nil
            #expect((reader(text) != nil) == foundation, "depth \(depth): Foundation accepts it: \(foundation)")
            #expect((reader(text) != nil) == (depth <= 512), "depth \(depth)")
        }
    }

    /// Valid documents, and the same documents with a byte changed, dropped or added: both parsers
    /// say the same about every one.
    @Test func agreesOnRandomDocumentsAndTheirMutations() throws {
        var random = SplitMix64(seed: 0x7A11_4EAD)
        for round in 0..<400 {
            let value = JSONValue.random(using: &random, depth: 3)
            let text = try TallyJSON.encode(value)
            expectAgreement(text, "round \(round): \(String(decoding: text, as: UTF8.self))")
            for _ in 0..<8 {
                var mutated = [UInt8](text)
                let position = Int.random(in: 0...mutated.count, using: &random)
                let byte = Array(#"{}[],:"\ -.e0123456789tfnu"#.utf8).randomElement(using: &random)!
                switch Int.random(in: 0..<3, using: &random) {
                case 0 where position < mutated.count: mutated[position] = byte
                case 1 where position < mutated.count: mutated.remove(at: position)
                default: mutated.insert(byte, at: position)
                }
                expectAgreement(Data(mutated), "round \(round): \(String(decoding: mutated, as: UTF8.self))")
            }
        }
    }

    /// Members read one by one: a skipped value is checked as strictly as a built one, and only
    /// its type is kept.
    @Test func skippedValuesKeepTheirTypeAndAreStillChecked() throws {
        func members(_ text: String) throws -> [String: JSONValue]? {
            var found: [String: JSONValue] = [:]
            let isObject = try JSONReader.readMembers(of: Data(text.utf8)) { key, reader throws(JSONReader.SyntaxError) in
                found[key] = key == "args" ? try reader.skipValue() : try reader.value()
            }
            return isObject ? found : nil
        }
        #expect(try members(#"{"args":{"a":[1,"x",{"b":null}]},"id":"r"}"#) == ["args": .object([:]), "id": "r"])
        #expect(try members(#"{"args":[1]}"#) == ["args": .array([])])
        #expect(try members(#"{"args":"x"}"#) == ["args": ""])
        #expect(try members(#"[{"args":1}]"#) == nil)
        for invalid in [#"{"args":{"a":}}"#, #"{"args":"\ud800"}"#, "{\"args\":\"\u{1}\"}", #"{"args":[1,,]}"#, #"{"args":1e400}"#, #"[1,]]"#] {
            #expect(throws: JSONReader.SyntaxError.self, "\(invalid)") { try members(invalid) }
        }
        let invalidUTF8 = Data([0x7B, 0x22, 0x61, 0x72, 0x67, 0x73, 0x22, 0x3A, 0x22, 0xFF, 0x22, 0x7D])
        #expect(throws: JSONReader.SyntaxError.self) {
            try JSONReader.readMembers(of: invalidUTF8) { _, reader throws(JSONReader.SyntaxError) in _ = try reader.skipValue() }
        }
    }
}

extension JSONValue {
    /// A random JSON value: strings with escapes, control characters and non-ASCII text, whole and
    /// fractional numbers, nested objects and arrays.
    static func random(using generator: inout SplitMix64, depth: Int) -> JSONValue {
        switch Int.random(in: 0..<(depth > 0 ? 8 : 6), using: &generator) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &generator))
        case 2: return .integer(Int64.random(in: Int64.min...Int64.max, using: &generator) >> Int64.random(in: 0..<63, using: &generator))
        case 3: return .number(Double(Int.random(in: -100_000...100_000, using: &generator)) / 64 + 0.5)
        case 4, 5: return .string(randomText(using: &generator))
        case 6:
            return .array((0..<Int.random(in: 0..<4, using: &generator)).map { _ in JSONValue.random(using: &generator, depth: depth - 1) })
        default:
            var members: [String: JSONValue] = [:]
            for _ in 0..<Int.random(in: 0..<5, using: &generator) {
                members[randomText(using: &generator)] = JSONValue.random(using: &generator, depth: depth - 1)
            }
            return .object(members)
        }
    }

    static func randomText(using random: inout SplitMix64) -> String {
        let pieces = ["a", "B", "z", "_", "-", "1", "10", "9", "\"", "\\", "/", "\n", "\t", "\u{1}", "\u{1f}", "\u{7f}", "é", "e\u{301}", "日", "😀", " ", "\u{2028}", "tip_base", "tip"]
        return (0..<Int.random(in: 0..<6, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
    }
}
