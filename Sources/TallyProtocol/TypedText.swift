import Foundation

/// Text a person typed, trimmed of whitespace and line breaks at either end, with its length in
/// user-perceived characters (a flag or an accented letter counts one): what every reader of
/// names, labels and notes checks, whatever its limits and messages.
public struct TypedText: Sendable {
    public let text: String
    /// User-perceived characters (grapheme clusters).
    public let characters: Int
    /// False when the text is known to hold none (printable ASCII), so nothing need be scanned.
    private let mayHoldControls: Bool

    public init(_ raw: String) {
        if let ascii = Self.printableASCII(raw) {
            (text, characters, mayHoldControls) = (ascii, ascii.utf8.count, false)
        } else {
            text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            (characters, mayHoldControls) = (text.count, true)
        }
    }

    /// Whether the text holds a control character (a tab or a line break inside it, say).
    public var hasControls: Bool {
        mayHoldControls && text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// `raw` trimmed of spaces at either end when every byte of it is printable ASCII (a space
    /// up to `~`), else nil. For such text the general rule's answer is known without Foundation's
    /// trimming or Unicode's tables: the only whitespace is the space, there is no control
    /// character, and every byte is one character. Most names and labels are like this, and the
    /// general path was 6 % of a writing worker's time (`perf`, December 2).
    static func printableASCII(_ raw: String) -> String? {
        let bytes = raw.utf8
        guard bytes.allSatisfy({ $0 >= 0x20 && $0 <= 0x7E }) else { return nil }
        guard let first = bytes.firstIndex(where: { $0 != 0x20 }), let last = bytes.lastIndex(where: { $0 != 0x20 }) else {
            return ""
        }
        if first == bytes.startIndex && last == bytes.index(before: bytes.endIndex) { return raw }
        return String(raw[first...last])
    }
}
