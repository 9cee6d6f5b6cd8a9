import Foundation
import TallyProtocol
import Testing

@testable import TallyRoster

/// `roster.ical`: an RFC 5545 calendar of the caller's shifts.
@Suite struct ICalTests {
    let ann = RosterHarness.ann, bo = RosterHarness.bo

    /// The content lines, unfolded (a CRLF followed by a space continues the line).
    private func unfolded(_ text: String) -> [String] {
        text.replacingOccurrences(of: "\r\n ", with: "").components(separatedBy: "\r\n").dropLast().map { $0 }
    }

    @Test func aFeedOfOnesShiftsAcrossADaylightSavingChange() throws {
        let harness = try RosterHarness()
        let team = try harness.team("Bakkerij de Zon, Centrum", zone: "Europe/Amsterdam")
        let weekly = try harness.weekly(team, "sunday", from: "2026-03-01", position: "Bread; ovens", worker: bo)
        try harness.weekly(team, "saturday", from: "2026-03-01", worker: ann)
        let result = try harness.call("roster.ical", ["from": "2026-03-22", "to": "2026-03-29"], as: bo)
        #expect(result["events"] == 2)
        let text = try #require(result["calendar"]?.stringValue)

        // Every line ends in CRLF, none is longer than 75 octets, and nothing else breaks a line.
        #expect(text.hasSuffix("\r\n"))
        let physical = text.components(separatedBy: "\r\n").dropLast()
        #expect(!physical.contains { $0.contains("\n") || $0.contains("\r") })
        #expect(physical.allSatisfy { $0.utf8.count <= 75 })

        let lines = unfolded(text)
        #expect(lines.first == "BEGIN:VCALENDAR")
        #expect(lines.last == "END:VCALENDAR")
        #expect(lines.contains("VERSION:2.0"))
        #expect(lines.contains { $0.hasPrefix("PRODID:") })
        // Components nest properly.
        var open: [String] = []
        for line in lines {
            if line.hasPrefix("BEGIN:") { open.append(String(line.dropFirst(6))) }
            if line.hasPrefix("END:") { #expect(open.popLast() == String(line.dropFirst(4)), "\(line)") }
        }
        #expect(open.isEmpty)

        // The zone is described, with the change of 29 March 2026 at 02:00 CET.
        #expect(lines.contains("TZID:Europe/Amsterdam"))
        let daylight = try #require(lines.firstIndex(of: "DTSTART:20260329T020000"))
        #expect(lines[daylight - 1] == "BEGIN:DAYLIGHT")
        #expect(lines[daylight + 1 ... daylight + 2] == ["TZOFFSETFROM:+0100", "TZOFFSETTO:+0200"])

        // Each of bo's Sundays, 09:00 local on both sides of the change; not ann's Saturday.
        let events = lines.split(separator: "BEGIN:VEVENT").dropFirst().map { Array($0.prefix { $0 != "END:VEVENT" }) }
        #expect(events.count == 2)
        #expect(events.map { $0.filter { $0.hasPrefix("DTSTART") } } == [
            ["DTSTART;TZID=Europe/Amsterdam:20260322T090000"], ["DTSTART;TZID=Europe/Amsterdam:20260329T090000"],
        ])
        #expect(events[1].contains("DTEND;TZID=Europe/Amsterdam:20260329T170000"))
        #expect(events[0].contains("UID:\(weekly)-20260322@roster.tally"))
        #expect(events.allSatisfy { event in event.contains { $0.hasPrefix("DTSTAMP:") && $0.hasSuffix("Z") && $0.count == 24 } })
        // TEXT is escaped: the comma and the semicolon.
        #expect(events[0].contains("SUMMARY:Bread\\; ovens (Bakkerij de Zon\\, Centrum)"))
    }

    @Test func longLinesFoldWithoutSplittingCharacters() {
        let line = "SUMMARY:" + String(repeating: "é", count: 100) + "🇳🇱"
        let folded = ICalendarText.folded(line)
        let pieces = folded.components(separatedBy: "\r\n")
        #expect(pieces.count == 3)
        #expect(pieces.allSatisfy { $0.utf8.count <= 75 })
        #expect(pieces.dropFirst().allSatisfy { $0.hasPrefix(" ") })
        #expect(pieces[0] + pieces.dropFirst().map { String($0.dropFirst()) }.joined() == line)
        #expect(ICalendarText.folded("SHORT:line") == "SHORT:line")
    }

    @Test func aFeedWithNoShiftsIsStillACalendar() throws {
        let harness = try RosterHarness()
        let result = try harness.call("roster.ical", as: RosterHarness.dan)
        #expect(result["events"] == 0)
        let lines = unfolded(try #require(result["calendar"]?.stringValue))
        #expect(lines.first == "BEGIN:VCALENDAR")
        #expect(!lines.contains("BEGIN:VTIMEZONE"))
    }
}
