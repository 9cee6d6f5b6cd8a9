/// A wall-clock time of day, `HH:MM` from `00:00` to `23:59`, kept as minutes after midnight.
struct TimeOfDay: Hashable, Comparable, Sendable, CustomStringConvertible {
    static let minutesPerDay = 1440

    let minutes: Int

    init?(minutes: Int) {
        guard (0..<Self.minutesPerDay).contains(minutes) else { return nil }
        self.minutes = minutes
    }

    /// Reads `HH:MM` exactly, 24-hour.
    init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2,
            parts.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) }),
            let hour = Int(parts[0]), let minute = Int(parts[1]), hour < 24, minute < 60
        else { return nil }
        self.minutes = hour * 60 + minute
    }

    var description: String { "\(LocalDate.padded(minutes / 60, 2)):\(LocalDate.padded(minutes % 60, 2))" }

    static func < (lhs: TimeOfDay, rhs: TimeOfDay) -> Bool { lhs.minutes < rhs.minutes }
}
