/// iCalendar text (RFC 5545) as calendar apps read it: content lines `NAME;PARAM=v:value` ending
/// in CRLF, folded so no line is longer than 75 octets (a continuation starts with one space and
/// never splits a UTF-8 character), and TEXT values escaped.
struct ICalendarText {
    static let longestLine = 75

    private var lines: [String] = []

    /// A property with a value written as is (dates, numbers, identifiers).
    mutating func property(_ name: String, _ value: String) {
        lines.append("\(name):\(value)")
    }

    /// A property whose value is TEXT: backslashes, semicolons, commas and line breaks escaped.
    mutating func text(_ name: String, _ value: String) {
        property(name, Self.escaped(value))
    }

    mutating func begin(_ component: String) { property("BEGIN", component) }
    mutating func end(_ component: String) { property("END", component) }

    /// The whole text, every line folded and ended with CRLF.
    var rendered: String { lines.map(Self.folded).joined(separator: "\r\n") + "\r\n" }

    static func escaped(_ value: String) -> String {
        var escaped = ""
        for character in value {
            switch character {
            case "\\": escaped += "\\\\"
            case ";": escaped += "\\;"
            case ",": escaped += "\\,"
            case "\n", "\r\n", "\r": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// `line` cut into pieces of at most 75 octets, the second and later led by a space.
    static func folded(_ line: String) -> String {
        var pieces: [String] = []
        var current = ""
        var octets = 0
        for scalar in line.unicodeScalars {
            let size = String(scalar).utf8.count
            if octets + size > longestLine {
                pieces.append(current)
                current = " "
                octets = 1
            }
            current.unicodeScalars.append(scalar)
            octets += size
        }
        pieces.append(current)
        return pieces.joined(separator: "\r\n")
    }
}
