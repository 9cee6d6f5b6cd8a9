import Foundation

/// Times as Tally's databases keep them (integer milliseconds since 1970) and as clients read them.
public enum Timestamp {
    public static func now() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }

    /// RFC 3339 in UTC with milliseconds: `2026-03-01T09:30:00.000Z`.
    ///
    /// Written from the integer with the proleptic Gregorian calendar's arithmetic (Howard
    /// Hinnant's `civil_from_days`), not with Foundation's `ISO8601FormatStyle`: every stored
    /// change's reply and events carry several of these, and Foundation's formatting was 3 % of a
    /// writing worker's time. `TimestampTests` holds the two equal. Times outside years 1970 to
    /// 9999 (none that Tally stores) still go to Foundation.
    public static func rfc3339(_ milliseconds: Int64) -> String {
        guard (0..<firstFiveDigitYear).contains(milliseconds) else { return foundationRFC3339(milliseconds) }
        let days = milliseconds / 86_400_000
        var rest = milliseconds % 86_400_000
        // civil_from_days, for days since 1970-01-01 (an era is 400 years, 146,097 days).
        let shifted = days + 719_468  // days since 0000-03-01
        let era = shifted / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)  // from March 1
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)

        var text = Array("0000-00-00T00:00:00.000Z".utf8)
        func put(_ value: Int64, at offset: Int, digits: Int) {
            var value = value
            for index in (offset..<offset + digits).reversed() {
                text[index] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            }
        }
        put(year, at: 0, digits: 4)
        put(month, at: 5, digits: 2)
        put(day, at: 8, digits: 2)
        put(rest / 3_600_000, at: 11, digits: 2)
        rest %= 3_600_000
        put(rest / 60_000, at: 14, digits: 2)
        rest %= 60_000
        put(rest / 1000, at: 17, digits: 2)
        put(rest % 1000, at: 20, digits: 3)
        return String(decoding: text, as: UTF8.self)
    }

    /// 10000-01-01T00:00:00.000Z: the first time whose year has five digits.
    static let firstFiveDigitYear: Int64 = 253_402_300_800_000

    /// The same text through Foundation: it formats the whole seconds and the milliseconds are
    /// appended from the integer, so no binary floating point touches them.
    static func foundationRFC3339(_ milliseconds: Int64) -> String {
        let whole = Date(timeIntervalSince1970: Double(milliseconds / 1000)).formatted(Date.ISO8601FormatStyle(timeZone: .gmt))
        let fraction = String(milliseconds % 1000)
        return whole.dropLast() + "." + String(repeating: "0", count: 3 - fraction.count) + fraction + "Z"
    }

    /// The milliseconds of an RFC 3339 time, with or without fractional seconds; nil if it is not one.
    ///
    /// The form `rfc3339(_:)` writes (`2026-03-01T09:30:00.000Z`, a valid date in years 1970 to
    /// 9999) is read with the same arithmetic run backwards; any other text goes to Foundation's
    /// `ISO8601FormatStyle`. Why: the notifier reads every event's time, and Foundation's parsing
    /// was 2 % of it. `TimestampTests` holds the two equal.
    public static func milliseconds(rfc3339 text: String) -> Int64? {
        var text = text
        return text.withUTF8 { tallyFormMilliseconds($0) } ?? foundationMilliseconds(rfc3339: text)
    }

    /// `text` read as Foundation reads it.
    static func foundationMilliseconds(rfc3339 text: String) -> Int64? {
        let date = (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
            ?? (try? Date.ISO8601FormatStyle().parse(text))
        return date.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
    }

    /// The milliseconds of exactly `YYYY-MM-DDTHH:MM:SS.mmmZ` naming a real time from 1970 on;
    /// nil for anything else, which Foundation then reads (or refuses) as it always did.
    private static func tallyFormMilliseconds(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard bytes.count == 24, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"), bytes[19] == UInt8(ascii: "."), bytes[23] == UInt8(ascii: "Z")
        else { return nil }
        func number(_ offset: Int, _ digits: Int) -> Int64? {
            var value: Int64 = 0
            for index in offset..<offset + digits {
                let digit = bytes[index] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value * 10 + Int64(digit)
            }
            return value
        }
        guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2),
            let minute = number(14, 2), let second = number(17, 2), let millisecond = number(20, 3),
            year >= 1970, (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
            hour < 24, minute < 60, second < 60
        else { return nil }
        // days_from_civil (Howard Hinnant), the inverse of `rfc3339(_:)`'s civil_from_days.
        let marchYear = month <= 2 ? year - 1 : year
        let era = marchYear / 400
        let yearOfEra = marchYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1  // from March 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468  // since 1970-01-01
        return ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millisecond
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
