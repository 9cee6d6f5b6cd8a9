import Foundation

/// A team's IANA time zone, and the one rule by which the roster turns the wall-clock times of
/// its schedule into instants.
///
/// The rule is RFC 5545's (section 3.3.5), so `roster.schedule` and the calendar apps reading
/// `roster.ical` always agree:
/// - a local time the clock skips (02:30 on the night clocks go forward) is read with the UTC
///   offset in force before the gap, so it lands as far after the gap as it was into it: 02:30
///   becomes 03:30 summer time;
/// - a local time the clock shows twice (02:30 on the night clocks go back) is the first of the
///   two, still in summer time.
///
/// Offsets come from the system's time zone database (tzdata) through Foundation; dates and times
/// are computed here, so no calendar, locale or default time zone takes part.
struct TeamTimeZone: Sendable, Equatable {
    let identifier: String
    private let zone: TimeZone

    static func == (lhs: TeamTimeZone, rhs: TeamTimeZone) -> Bool { lhs.identifier == rhs.identifier }

    /// The zone named `identifier`: an IANA name the system knows exactly as written, such as
    /// `Europe/Amsterdam`, `America/New_York` or `UTC`. Offset forms (`GMT+2`) are not zones with
    /// rules and are refused, as are names in another letter case.
    init?(identifier: String) {
        guard !identifier.hasPrefix("GMT+"), !identifier.hasPrefix("GMT-"),
            let zone = TimeZone(identifier: identifier),
            zone.identifier == identifier || identifier == "UTC"
        else { return nil }
        self.identifier = identifier
        self.zone = zone
    }

    /// The UTC offset in seconds at `milliseconds` since 1970.
    func offsetSeconds(at milliseconds: Int64) -> Int {
        zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(Self.floorDivide(milliseconds, 1000))))
    }

    /// The instant, in milliseconds since 1970, of the wall-clock time `minute` minutes after the
    /// start of `date` (which may run past midnight into the next days), by the rule above.
    func instant(_ date: LocalDate, minute: Int) -> Int64 {
        let wall = Int64(date.epochDay) * 86_400 + Int64(minute) * 60
        // The offsets in force a day either side: a wall time has at most these two readings.
        let before = offsetSeconds(at: (wall - 86_400) * 1000)
        let after = offsetSeconds(at: (wall + 86_400) * 1000)
        let readings = Set([before, after]).filter { offset in offsetSeconds(at: (wall - Int64(offset)) * 1000) == offset }
        // Twice: the first, which has the larger offset. Never (a gap): the offset before it.
        let offset = readings.max() ?? before
        return (wall - Int64(offset)) * 1000
    }

    /// The local date and the minute of that day at `milliseconds`.
    func local(_ milliseconds: Int64) -> (date: LocalDate, minute: Int) {
        let seconds = Self.floorDivide(milliseconds, 1000) + Int64(offsetSeconds(at: milliseconds))
        let days = Self.floorDivide(seconds, 86_400)
        return (LocalDate(epochDay: Int(days)), Int((seconds - days * 86_400) / 60))
    }

    /// The local date at `milliseconds`: "today" for the team.
    func date(at milliseconds: Int64) -> LocalDate { local(milliseconds).date }

    /// RFC 3339 with the local offset, to the second: `2026-03-29T09:00:00+02:00`.
    func rfc3339(_ milliseconds: Int64) -> String {
        let offset = offsetSeconds(at: milliseconds)
        let seconds = Self.floorDivide(milliseconds, 1000) + Int64(offset)
        let days = Self.floorDivide(seconds, 86_400)
        let second = Int(seconds - days * 86_400)
        let sign = offset < 0 ? "-" : "+"
        let zoneText = "\(sign)\(LocalDate.padded(abs(offset) / 3600, 2)):\(LocalDate.padded(abs(offset) % 3600 / 60, 2))"
        return "\(LocalDate(epochDay: Int(days)))T\(LocalDate.padded(second / 3600, 2)):\(LocalDate.padded(second % 3600 / 60, 2)):\(LocalDate.padded(second % 60, 2))\(zoneText)"
    }

    /// The moments the zone's offset changes after `start` up to `end` (milliseconds), oldest
    /// first, each with the offsets before and after it and whether summer time begins there.
    func transitions(from start: Int64, to end: Int64) -> [Transition] {
        var found: [Transition] = []
        var cursor = Date(timeIntervalSince1970: Double(Self.floorDivide(start, 1000)))
        while let next = zone.nextDaylightSavingTimeTransition(after: cursor), next.timeIntervalSince1970 * 1000 <= Double(end) {
            let at = Int64(next.timeIntervalSince1970) * 1000
            found.append(Transition(
                at: at, offsetBefore: offsetSeconds(at: at - 1000), offsetAfter: offsetSeconds(at: at),
                beginsDaylightSaving: zone.isDaylightSavingTime(for: next)))
            cursor = next
        }
        return found
    }

    struct Transition: Sendable, Equatable {
        let at: Int64
        let offsetBefore: Int
        let offsetAfter: Int
        let beginsDaylightSaving: Bool
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return value % divisor < 0 ? quotient - 1 : quotient
    }
}
