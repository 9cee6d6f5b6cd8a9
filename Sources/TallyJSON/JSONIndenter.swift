import Foundation

/// Indents compact JSON for a terminal without reordering keys (a decode and re-encode would
/// sort or shuffle them).
public enum JSONIndenter {
    public static func indent(_ json: Data, width: Int = 2) -> Data {
        var out: [UInt8] = []
        out.reserveCapacity(json.count * 2)
        var depth = 0
        var inString = false
        var escaped = false
        let bytes = Array(json)
        func newline() {
            out.append(UInt8(ascii: "\n"))
            out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: depth * width))
        }
        for (index, byte) in bytes.enumerated() {
            if inString {
                out.append(byte)
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
                out.append(byte)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                out.append(byte)
                let next = bytes.dropFirst(index + 1).first { $0 != UInt8(ascii: " ") }
                depth += 1
                if next != UInt8(ascii: "}") && next != UInt8(ascii: "]") { newline() }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if let last = out.last, last != UInt8(ascii: "{") && last != UInt8(ascii: "[") { newline() }
                out.append(byte)
            case UInt8(ascii: ","):
                out.append(byte)
                newline()
            case UInt8(ascii: ":"):
                out.append(contentsOf: [UInt8(ascii: ":"), UInt8(ascii: " ")])
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                continue
            default:
                out.append(byte)
            }
        }
        return Data(out)
    }
}
