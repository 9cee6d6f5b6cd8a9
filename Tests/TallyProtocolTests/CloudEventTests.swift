import Foundation
import TallyProtocol
import Testing

/// `CloudEvent.decode` reads what `JSONDecoder` reads, as `JSONDecoder` reads it, and refuses what
/// it refuses; `encoded()` writes what `TallyJSON` writes. (The `events` fuzz target
/// compares them on many more inputs.)
@Suite struct CloudEventTests {
    static let texts: [String] = [
        // As Tally publishes one.
        #"{"data":{"list_id":7,"price":"1.29"},"datacontenttype":"application/json","epoch":"6d1f3b8e-4a2c-4e9f-a7b3-1c5e8d2f6a90","id":"e1","requestid":"r-9","sequence":41,"source":"tally/shopping","specversion":"1.0","subject":"ann/7","time":"2026-11-25T10:00:00.000Z","type":"shopping.price_changed"}"#,
        // Optional members absent or null, unknown members ignored, data of any kind.
        #"{"specversion":"1.0","id":"e2","source":"tally/roster","type":"roster.shift_approved","time":"t","sequence":1,"data":null,"subject":null,"extra":[1,2]}"#,
        #"{"specversion":"1.0","id":"e3","source":"elsewhere","type":"accounts.created","time":"t","sequence":2.0,"data":[1,"two",{"3":4.5}]}"#,
        #"{"specversion":"1.0","id":"e4","source":"tally/x","type":"x.y","time":"t","sequence":1e2,"data":{},"requestid":"\u00e9\n"}"#,
        #"{"specversion":"1.0","id":"dup","id":"e5","source":"tally/x","type":"x.y","time":"t","sequence":3,"data":{}}"#,
        // Refused: no data, sequence not an integer, a member of the wrong kind, not an object, not JSON.
        #"{"specversion":"1.0","id":"e6","source":"tally/x","type":"x.y","time":"t","sequence":3}"#,
        #"{"specversion":"1.0","id":"e7","source":"tally/x","type":"x.y","time":"t","sequence":3.5,"data":{}}"#,
        #"{"specversion":"1.0","id":"e8","source":"tally/x","type":"x.y","time":"t","sequence":"3","data":{}}"#,
        #"{"specversion":"1.0","id":"e9","source":"tally/x","type":"x.y","time":"t","sequence":3,"data":{},"subject":5}"#,
        #"{"specversion":1,"id":"e10","source":"tally/x","type":"x.y","time":"t","sequence":3,"data":{}}"#,
        #"{"specversion":"1.0","id":"e11","source":"tally/x","type":"x.y","time":"t","sequence":99999999999999999999,"data":{}}"#,
        #"[1]"#, #"{"id":"#, "",
        // Refused by the contract checks after reading: an empty id, a sequence below 1.
        #"{"specversion":"1.0","id":"","source":"tally/x","type":"x.y","time":"t","sequence":3,"data":{}}"#,
        #"{"specversion":"1.0","id":"e12","source":"tally/x","type":"x.y","time":"t","sequence":0,"data":{}}"#,
    ]

    /// What decoding with `JSONDecoder` and the same contract checks gives.
    static func foundation(_ data: Data) -> CloudEvent? {
        guard let event = try? JSONDecoder().decode(CloudEvent.self, from: data),
            !event.id.isEmpty, !event.type.isEmpty, event.sequence >= 1, !event.service.isEmpty
        else { return nil }
        return event
    }

    @Test(arguments: texts) func decodesAsFoundationDoes(_ text: String) throws {
        let data = Data(text.utf8)
        let expected = Self.foundation(data)
        let decoded = try? CloudEvent.decode(data)
        #expect(decoded == expected)
        if let decoded {
            #expect(decoded.encoded() == (try TallyJSON.encode(decoded)), "written as TallyJSON writes it")
            #expect((try? CloudEvent.decode(decoded.encoded())) == decoded, "reads back")
        }
    }

    /// `encoded()` writes the members itself: held equal to `TallyJSON` on the shapes its
    /// data and its optional members take.
    @Test func anEventIsWrittenAsJSONEncoderWritesItWhateverItsData() throws {
        let datas: [JSONValue] = [
            .null, true, 0, -42, .number(4.5), .number(1e300), "", "a\"b\\c\n\u{1}é/😀\u{2028}", [], [1, "two", [3], [:]], [:],
            ["é": 1, "z": 2, "A": 3, "_": 4, "a\"b": 5, "": 6, "aa": ["b": [.null, .number(-0.5)]], "e\u{301}": 7, "日": "x"],
        ]
        for data in datas {
            for withOptionals in [false, true] {
                var event = CloudEvent(
                    id: "e1", source: "tally/shopping", type: "shopping.price_changed", time: "2026-11-25T10:00:00.000Z",
                    subject: withOptionals ? "ann/7" : nil, sequence: 41, data: data, requestID: withOptionals ? "r-\u{e9}" : nil,
                    epoch: withOptionals ? "6d1f3b8e-4a2c-4e9f-a7b3-1c5e8d2f6a90" : nil)
                if !withOptionals { event.datacontenttype = nil }
                #expect(event.encoded() == (try TallyJSON.encode(event)), "\(data), optionals: \(withOptionals)")
            }
        }
        let notFinite = CloudEvent(id: "e1", source: "tally/x", type: "x.y", time: "t", sequence: 1, data: ["p": .number(.nan)])
        #expect(notFinite.encoded().isEmpty)
        #expect(throws: (any Error).self) { try TallyJSON.encode(notFinite) }
    }

    @Test func theFirstFiveAreAcceptedAndTheRestRefused() {
        let accepted = Self.texts.map { (try? CloudEvent.decode(Data($0.utf8))) != nil }
        #expect(accepted == Array(repeating: true, count: 5) + Array(repeating: false, count: Self.texts.count - 5))
    }

    /// JSONDecoder does not read an unknown member's string, so it lets invalid UTF-8 there
    /// pass; a text that is not JSON is refused here.
    @Test func invalidUTF8InAnUnknownMemberIsRefused() throws {
        var data = Data(#"{"specversion":"1.0","id":"e1","source":"tally/x","type":"x.y","time":"t","sequence":3,"data":{},"other":"5"#.utf8)
        data.append(contentsOf: [0xDB, 0x33, 0x22, 0x7D])  // an invalid byte, then `3"}`
        #expect(Self.foundation(data) != nil)
        #expect(throws: EventDecodingError.self) { try CloudEvent.decode(data) }
    }

    /// Data nested as deep as JSONDecoder reads a `JSONValue` is read, one level more is refused.
    @Test(arguments: [62, 63, 64, 65, 400]) func dataNestsAsDeepAsJSONDecoderReads(_ levels: Int) {
        let nested = String(repeating: #"{"a":"#, count: levels - 1) + "1" + String(repeating: "}", count: levels - 1)
        let data = Data(#"{"specversion":"1.0","id":"e1","source":"tally/x","type":"x.y","time":"t","sequence":3,"data":\#(nested)}"#.utf8)
        #expect((try? CloudEvent.decode(data)) == Self.foundation(data))
        #expect(((try? CloudEvent.decode(data)) != nil) == (levels < JSONValue.maximumDepth))
    }

    @Test func aRefusalSaysWhatIsWrong() {
        #expect(throws: EventDecodingError.self) { try CloudEvent.decode(Data(Self.texts[6].utf8)) }
        do {
            _ = try CloudEvent.decode(Data(Self.texts[6].utf8))
        } catch {
            #expect("\(error)" == "an event needs 'sequence', an integer")
        }
    }
}
