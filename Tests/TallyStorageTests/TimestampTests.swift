@testable import TallyStorage
import Testing

@Suite struct TimestampTests {
    @Test func timestampsAreRFC3339InUTCWithMilliseconds() {
        #expect(Timestamp.rfc3339(0) == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp.rfc3339(1_767_225_600_123) == "2026-01-01T00:00:00.123Z")
        #expect(Timestamp.rfc3339(1_767_225_659_007) == "2026-01-01T00:00:59.007Z")
        #expect(Timestamp.rfc3339(951_782_400_000) == "2000-02-29T00:00:00.000Z", "a leap day of a century divisible by 400")
        #expect(Timestamp.rfc3339(4_107_542_400_000) == "2100-03-01T00:00:00.000Z", "2100 is no leap year")
        #expect(Timestamp.rfc3339(Timestamp.firstFiveDigitYear - 1) == "9999-12-31T23:59:59.999Z")
    }

    /// The calendar arithmetic agrees with Foundation's formatting: on the edges of days, months,
    /// years and centuries, and on times drawn at random from the whole range.
    @Test func theArithmeticAgreesWithFoundation() {
        let times = Self.sampleTimes()
        let disagreeing = times.filter { $0 >= 0 && Timestamp.rfc3339($0) != Timestamp.foundationRFC3339($0) }
        #expect(disagreeing.isEmpty, "\(disagreeing.prefix(5).map { ($0, Timestamp.rfc3339($0), Timestamp.foundationRFC3339($0)) })")
    }

    /// Tally's own form is read back to the milliseconds it was written from, as Foundation reads
    /// it; every other form, and every text that is not a time, is still Foundation's to read.
    @Test func readingAgreesWithFoundation() {
        let times = Self.sampleTimes()
        let misread = times.filter { $0 >= 0 && Timestamp.milliseconds(rfc3339: Timestamp.rfc3339($0)) != $0 }
        #expect(misread.isEmpty, "\(misread.prefix(5).map { ($0, Timestamp.rfc3339($0), Timestamp.milliseconds(rfc3339: Timestamp.rfc3339($0)) as Any) })")
        let foundationDisagrees = times.filter { $0 >= 0 && Timestamp.foundationMilliseconds(rfc3339: Timestamp.rfc3339($0)) != $0 }
        #expect(foundationDisagrees.isEmpty, "\(foundationDisagrees.prefix(5))")

        let others = [
            "2026-03-01T09:30:00Z", "2026-03-01T09:30:00.5Z", "2026-03-01T09:30:00.000+01:00", "1969-12-31T23:59:59.999Z",
            "2026-02-29T00:00:00.000Z", "2024-02-30T00:00:00.000Z", "2026-04-31T00:00:00.000Z", "2026-13-01T00:00:00.000Z",
            "2026-00-01T00:00:00.000Z", "2026-01-00T00:00:00.000Z", "2026-01-01T24:00:00.000Z", "2026-01-01T00:60:00.000Z",
            "2026-01-01T00:00:60.000Z", "2026-01-01 00:00:00.000Z", "2026-01-01T00:00:00.000z", "2026-01-01T00:00:0a.000Z",
            "+026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.0000", "", "not a time", "2026-01-01T00:00:00.000Z ",
        ]
        for text in others {
            #expect(Timestamp.milliseconds(rfc3339: text) == Timestamp.foundationMilliseconds(rfc3339: text), "\(text)")
        }
        #expect(Timestamp.milliseconds(rfc3339: "2024-02-29T12:00:00.250Z") == 1_709_208_000_250)
    }

    /// The edges of days, months, years and centuries (a millisecond either side of each month's
    /// start), and times drawn at random from the whole range, all from 1970 to 9999.
    private static func sampleTimes() -> [Int64] {
        var times: [Int64] = [0, 1, 999, 1000, 86_399_999, 86_400_000, Timestamp.firstFiveDigitYear - 1]
        for year in [1970, 1971, 1972, 1999, 2000, 2001, 2024, 2100, 2400, 9999] {
            for month in 1...12 {
                let start = milliseconds(year: year, month: month)
                times += [start - 1, start, start + 1]
            }
        }
        var generator = SystemRandomNumberGenerator()
        times += (0..<5000).map { _ in Int64.random(in: 0..<Timestamp.firstFiveDigitYear, using: &generator) }
        return times
    }

    /// Milliseconds at the start of a month (days counted the long way, independent of the code under test).
    private static func milliseconds(year: Int, month: Int) -> Int64 {
        func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }
        var days = 0
        for earlier in 1970..<year { days += isLeap(earlier) ? 366 : 365 }
        let lengths = [31, isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        days += lengths.prefix(month - 1).reduce(0, +)
        return Int64(days) * 86_400_000
    }
}
