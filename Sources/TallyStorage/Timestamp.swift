import Foundation

/// Times as Tally's databases keep them (integer milliseconds since 1970) and as clients read them.
public enum Timestamp {
    public static func now() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }

    /// RFC 3339 in UTC with milliseconds: `2026-03-01T09:30:00.000Z`.
    /// Foundation formats the whole seconds and the milliseconds are appended from the integer, so
    /// no binary floating point touches them. Times are after 1970.
    public static func rfc3339(_ milliseconds: Int64) -> String {
        let whole = Date(timeIntervalSince1970: Double(milliseconds / 1000)).formatted(Date.ISO8601FormatStyle(timeZone: .gmt))
        let fraction = String(milliseconds % 1000)
        return whole.dropLast() + "." + String(repeating: "0", count: 3 - fraction.count) + fraction + "Z"
    }

    /// The milliseconds of an RFC 3339 time, with or without fractional seconds; nil if it is not one.
    public static func milliseconds(rfc3339 text: String) -> Int64? {
        let date = (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
            ?? (try? Date.ISO8601FormatStyle().parse(text))
        return date.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
    }
}
