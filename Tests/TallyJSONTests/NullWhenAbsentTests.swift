import Foundation
import Testing

@testable import TallyJSON

/// `@NullWhenAbsent`: the key is always written, `null` for nil, as Foundation's encoder writes an
/// optional encoded with `encode` rather than `encodeIfPresent`; read back, `null` and a missing
/// key are both nil.
@Suite struct NullWhenAbsentTests {
    private struct Percentiles: Codable, Equatable {
        let requests: Int
        @NullWhenAbsent var p99Ms: Double?
        /// Beside it, a plain optional: left out when nil.
        var note: String?
    }

    @Test func nilIsWrittenAsNullAndAPlainOptionalIsLeftOut() throws {
        let bytes = try TallyJSON.encode(Percentiles(requests: 0, p99Ms: nil, note: nil))
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"p99_ms":null,"requests":0}"#)
        #expect(bytes == (try JSONWriterTests.foundation.encode(Percentiles(requests: 0, p99Ms: nil, note: nil))))
    }

    @Test func aValueIsWrittenAsItself() throws {
        let bytes = try TallyJSON.encode(Percentiles(requests: 3, p99Ms: 1.5, note: "x"))
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"note":"x","p99_ms":1.5,"requests":3}"#)
    }

    @Test func nullAndAMissingKeyReadBackAsNil() throws {
        for text in [#"{"requests":1,"p99_ms":null}"#, #"{"requests":1}"#] {
            #expect(try TallyJSON.decode(Percentiles.self, from: Data(text.utf8)) == Percentiles(requests: 1, p99Ms: nil))
        }
        let full = Percentiles(requests: 2, p99Ms: 4.25, note: "n")
        #expect(try TallyJSON.decode(Percentiles.self, from: TallyJSON.encode(full)) == full)
    }

    @Test func aValueOfTheWrongTypeIsAnError() {
        #expect(throws: (any Error).self) {
            try TallyJSON.decode(Percentiles.self, from: Data(#"{"requests":1,"p99_ms":"fast"}"#.utf8))
        }
    }
}
