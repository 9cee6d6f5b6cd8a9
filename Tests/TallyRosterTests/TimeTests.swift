import Testing

@testable import TallyRoster

/// Dates, times and the one rule that turns a team's wall-clock times into instants.
@Suite struct TimeTests {
    @Test func datesRoundTripThroughDaysAndText() throws {
        #expect(LocalDate(epochDay: 0).description == "1970-01-01")
        #expect(LocalDate("2030-03-30")?.epochDay == 22_003)
        for day in stride(from: 366, through: 375_000, by: 997) {
            let date = LocalDate(epochDay: day)
            #expect(LocalDate(date.description)?.epochDay == day)
        }
        #expect(LocalDate("2028-02-29") != nil)
        for bad in ["2027-02-29", "2030-13-01", "2030-3-30", "30-03-2030", "2030-03-30T09:00", "", "1970-01-01", "3000-01-01", "２０３０-03-30"] {
            #expect(LocalDate(bad) == nil, "\(bad)")
        }
        #expect(LocalDate("2030-12-15")?.lastOfMonth.description == "2030-12-31")
        #expect(LocalDate("2028-02-10")?.lastOfMonth.description == "2028-02-29")
        #expect(LocalDate("2030-03-30")?.firstOfMonth.description == "2030-03-01")
    }

    @Test func weekdaysAreISO() throws {
        #expect(LocalDate(epochDay: 0).weekday == .thursday)
        #expect(LocalDate("2030-03-30")?.weekday == .saturday)
        #expect(LocalDate("2030-03-31")?.weekday == .sunday)
        #expect(LocalDate("2026-03-09")?.weekday == .monday)
        #expect(Weekday(name: "sunday")?.rawValue == 7)
        #expect(Weekday(name: "Sunday") == nil)
    }

    @Test func timesOfDayAreTwentyFourHour() {
        #expect(TimeOfDay("00:00")?.minutes == 0)
        #expect(TimeOfDay("23:59")?.minutes == 1439)
        #expect(TimeOfDay("09:30")?.description == "09:30")
        for bad in ["24:00", "9:00", "09:60", "09.00", "0900", "-1:00"] { #expect(TimeOfDay(bad) == nil, "\(bad)") }
    }

    @Test func zonesAreIANANamesAsWritten() {
        #expect(TeamTimeZone(identifier: "Europe/Amsterdam") != nil)
        #expect(TeamTimeZone(identifier: "America/New_York") != nil)
        #expect(TeamTimeZone(identifier: "UTC")?.identifier == "UTC")
        for bad in ["europe/amsterdam", "GMT+2", "Mars/Olympus_Mons", "", "+01:00"] {
            #expect(TeamTimeZone(identifier: bad) == nil, "\(bad)")
        }
    }

    @Test func amsterdamSpringForward() throws {
        let zone = try #require(TeamTimeZone(identifier: "Europe/Amsterdam"))
        let day = try #require(LocalDate("2026-03-29"))
        // 09:00 is 09:00 summer time.
        #expect(zone.rfc3339(zone.instant(day, minute: 9 * 60)) == "2026-03-29T09:00:00+02:00")
        #expect(zone.rfc3339(zone.instant(day.adding(days: -1), minute: 9 * 60)) == "2026-03-28T09:00:00+01:00")
        // 02:30 does not exist: read with the offset before the gap, it is 03:30 summer time.
        #expect(zone.rfc3339(zone.instant(day, minute: 150)) == "2026-03-29T03:30:00+02:00")
        // The moments either side of the gap.
        #expect(zone.rfc3339(zone.instant(day, minute: 119)) == "2026-03-29T01:59:00+01:00")
        #expect(zone.rfc3339(zone.instant(day, minute: 180)) == "2026-03-29T03:00:00+02:00")
    }

    @Test func amsterdamFallBack() throws {
        let zone = try #require(TeamTimeZone(identifier: "Europe/Amsterdam"))
        let day = try #require(LocalDate("2026-10-25"))
        // 02:30 happens twice: the first, still summer time.
        let first = zone.instant(day, minute: 150)
        #expect(zone.rfc3339(first) == "2026-10-25T02:30:00+02:00")
        #expect(zone.rfc3339(first + 3_600_000) == "2026-10-25T02:30:00+01:00")
        #expect(zone.rfc3339(zone.instant(day, minute: 9 * 60)) == "2026-10-25T09:00:00+01:00")
        #expect(zone.local(first).minute == 150)
    }

    @Test func newYorkChanges() throws {
        let zone = try #require(TeamTimeZone(identifier: "America/New_York"))
        let spring = try #require(LocalDate("2026-03-08"))
        #expect(zone.rfc3339(zone.instant(spring, minute: 150)) == "2026-03-08T03:30:00-04:00")
        #expect(zone.rfc3339(zone.instant(spring, minute: 9 * 60)) == "2026-03-08T09:00:00-04:00")
        #expect(zone.rfc3339(zone.instant(spring.adding(days: -1), minute: 9 * 60)) == "2026-03-07T09:00:00-05:00")
        let fall = try #require(LocalDate("2026-11-01"))
        #expect(zone.rfc3339(zone.instant(fall, minute: 90)) == "2026-11-01T01:30:00-04:00")
        #expect(zone.rfc3339(zone.instant(fall, minute: 9 * 60)) == "2026-11-01T09:00:00-05:00")
    }

    @Test func transitionsAreFound() throws {
        let zone = try #require(TeamTimeZone(identifier: "Europe/Amsterdam"))
        let start = Int64(try #require(LocalDate("2026-01-01")).epochDay) * 86_400_000
        let end = Int64(try #require(LocalDate("2026-12-31")).epochDay) * 86_400_000
        let changes = zone.transitions(from: start, to: end)
        #expect(changes.map { zone.rfc3339($0.at) } == ["2026-03-29T03:00:00+02:00", "2026-10-25T02:00:00+01:00"])
        #expect(changes.map(\.beginsDaylightSaving) == [true, false])
        #expect(changes.map(\.offsetBefore) == [3600, 7200])
        #expect(try #require(TeamTimeZone(identifier: "Asia/Tokyo")).transitions(from: start, to: end).isEmpty)
    }
}
