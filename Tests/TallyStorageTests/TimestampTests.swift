import TallyStorage
import Testing

@Suite struct TimestampTests {
    @Test func timestampsAreRFC3339InUTCWithMilliseconds() {
        #expect(Timestamp.rfc3339(0) == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp.rfc3339(1_767_225_600_123) == "2026-01-01T00:00:00.123Z")
        #expect(Timestamp.rfc3339(1_767_225_659_007) == "2026-01-01T00:00:59.007Z")
    }
}
