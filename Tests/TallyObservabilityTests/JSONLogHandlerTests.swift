import Foundation
import Logging
import Synchronization
import TallyObservability
import Testing

@Suite struct JSONLogHandlerTests {
    @Test func eachEntryIsOneJSONObjectOnALineWithItsMetadataAsKeys() throws {
        let lines = Mutex<[Data]>([])
        var logger = Logger(label: "tally.worker.accounts") { label in
            JSONLogHandler(label: label, output: { line in lines.withLock { $0.append(line) } })
        }
        logger[metadataKey: "service"] = "accounts"
        logger.info("command failed", metadata: ["request_id": "c-1", "command": "accounts.create", "tries": .array(["1", "2"])])
        logger.debug("not at info level")
        let written = lines.withLock { $0 }
        #expect(written.count == 1)
        let line = try #require(written.first)
        #expect(line.last == UInt8(ascii: "\n"))
        #expect(!line.dropLast().contains(UInt8(ascii: "\n")), "one line per entry")
        let object = try #require(try JSONSerialization.jsonObject(with: line) as? [String: Any])
        #expect(object["message"] as? String == "command failed")
        #expect(object["level"] as? String == "info")
        #expect(object["logger"] as? String == "tally.worker.accounts")
        #expect(object["request_id"] as? String == "c-1")
        #expect(object["command"] as? String == "accounts.create")
        #expect(object["service"] as? String == "accounts")
        #expect(object["tries"] as? [String] == ["1", "2"])
        #expect((object["time"] as? String)?.hasSuffix("Z") == true)
    }

    @Test func messagesWithQuotesAndLineBreaksStayOneValidLine() throws {
        let lines = Mutex<[Data]>([])
        let logger = Logger(label: "t") { label in JSONLogHandler(label: label, output: { line in lines.withLock { $0.append(line) } }) }
        logger.warning("a \"quoted\"\nsecond line\tand a tab")
        let line = try #require(lines.withLock { $0 }.first)
        #expect(line.filter { $0 == UInt8(ascii: "\n") }.count == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: line) as? [String: Any])
        #expect(object["message"] as? String == "a \"quoted\"\nsecond line\tand a tab")
    }

    @Test func numbersAndBooleansLoggedAsThemselvesAreJSONNumbersAndBooleans() throws {
        let lines = Mutex<[Data]>([])
        let logger = Logger(label: "t") { label in JSONLogHandler(label: label, output: { line in lines.withLock { $0.append(line) } }) }
        logger.info(
            "worker joined",
            metadata: [
                "workers": .stringConvertible(3), "pending": .stringConvertible(UInt8(7)), "seconds": .stringConvertible(0.25),
                "ok": .stringConvertible(false), "not_a_number": .stringConvertible(Double.nan), "as_text": "42",
                "nested": .dictionary(["count": .stringConvertible(-2)]),
            ])
        let line = try #require(lines.withLock { $0 }.first)
        let text = String(decoding: line, as: UTF8.self)
        #expect(text.contains(#""workers":3"#), "\(text)")
        #expect(text.contains(#""pending":7"#), "\(text)")
        #expect(text.contains(#""seconds":0.25"#), "\(text)")
        #expect(text.contains(#""ok":false"#), "\(text)")
        #expect(text.contains(#""nested":{"count":-2}"#), "\(text)")
        // JSON has no NaN: it stays text, and so does a number the code logged as a string.
        #expect(text.contains(#""not_a_number":"nan""#), "\(text)")
        #expect(text.contains(#""as_text":"42""#), "\(text)")
        #expect(try JSONSerialization.jsonObject(with: line) is [String: Any])
    }
}
