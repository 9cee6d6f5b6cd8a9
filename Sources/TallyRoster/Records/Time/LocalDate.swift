/// A day of a team's calendar, without a time zone: what a roster says ("Saturday 28 March"),
/// before the team's zone turns it into instants. Written `YYYY-MM-DD` on the wire and in the
/// database, where text order is date order.
///
/// Arithmetic is on days since 1970-01-01 with the proleptic Gregorian calendar (Howard Hinnant's
/// civil-date algorithms), so no calendar object, locale or time zone can change what a date is.
struct LocalDate: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The years a roster accepts: far enough either way for any schedule, and inside what time
    /// zone data and millisecond instants describe.
    static let years = 1971...2999

    let year: Int
    let month: Int
    let day: Int

    /// The date, when it exists (no 30 February) and its year is in `years`.
    init?(year: Int, month: Int, day: Int) {
        guard Self.years.contains(year), (1...12).contains(month), day >= 1 else { return nil }
        let date = LocalDate(epochDay: Self.epochDay(year: year, month: month, day: day))
        guard date.year == year, date.month == month, date.day == day else { return nil }
        self = date
    }

    /// The date `epochDay` days after 1970-01-01.
    init(epochDay: Int) {
        let z = epochDay + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// Days since 1970-01-01.
    var epochDay: Int { Self.epochDay(year: year, month: month, day: day) }

    var weekday: Weekday {
        // 1970-01-01 was a Thursday.
        Weekday(rawValue: ((epochDay % 7) + 7 + 3) % 7 + 1)!
    }

    func adding(days: Int) -> LocalDate { LocalDate(epochDay: epochDay + days) }

    /// Days from `self` to `other`: positive when `other` is later.
    func days(until other: LocalDate) -> Int { other.epochDay - epochDay }

    /// The first day of the date's month.
    var firstOfMonth: LocalDate { LocalDate(year: year, month: month, day: 1)! }

    /// The last day of the date's month.
    var lastOfMonth: LocalDate {
        let (nextYear, nextMonth) = month == 12 ? (year + 1, 1) : (year, month + 1)
        return LocalDate(epochDay: Self.epochDay(year: nextYear, month: nextMonth, day: 1) - 1)
    }

    /// Reads `YYYY-MM-DD` exactly: four-digit year, two-digit month and day.
    init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) }),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else { return nil }
        self.init(year: year, month: month, day: day)
    }

    var description: String { "\(Self.padded(year, 4))-\(Self.padded(month, 2))-\(Self.padded(day, 2))" }

    /// The date without separators, as iCalendar writes it: `20260328`.
    var basic: String { "\(Self.padded(year, 4))\(Self.padded(month, 2))\(Self.padded(day, 2))" }

    static func < (lhs: LocalDate, rhs: LocalDate) -> Bool { lhs.epochDay < rhs.epochDay }

    static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    private static func epochDay(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

/// A day of the week, numbered as ISO 8601 does (Monday 1 to Sunday 7), named in lower case on the wire.
enum Weekday: Int, CaseIterable, Sendable {
    case monday = 1, tuesday, wednesday, thursday, friday, saturday, sunday

    var name: String { String(describing: self) }

    init?(name: String) {
        guard let day = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = day
    }
}
