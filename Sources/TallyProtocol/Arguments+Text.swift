import Foundation

extension Arguments {
    /// A short text a person typed (a name, a label, a note): trimmed of whitespace and line breaks
    /// at either end, at most `longest` user-perceived characters (a flag or an accented letter
    /// counts one), without control characters. Nil when absent or `null`; blank is refused, with
    /// `what` (what the field holds) in the message.
    public func optionalText(_ key: String, longest: Int, what: String) throws(TallyError) -> String? {
        guard let raw = try optionalString(key) else { return nil }
        // Either path yields the trimmed text and its character count; the checks below are the
        // same for both, so the messages are written once.
        let text: String
        let characters: Int
        let mayHoldControls: Bool
        if let ascii = Self.printableASCII(raw) {
            (text, characters, mayHoldControls) = (ascii, ascii.utf8.count, false)
        } else {
            text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            (characters, mayHoldControls) = (text.count, true)
        }
        let field = field(key)
        guard !text.isEmpty else { throw .invalidArgument("\(key) must not be blank (\(what))", field: field) }
        // The byte bound keeps storage bounded whatever the characters, far above any real ones.
        guard characters <= longest, text.utf8.count <= longest * 16 else {
            throw .invalidArgument("\(key) must be at most \(longest) characters; this one has \(characters)", field: field)
        }
        guard !mayHoldControls || !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalidArgument("\(key) must not contain control characters such as tabs or line breaks", field: field)
        }
        return text
    }

    /// `optionalText`, required.
    public func text(_ key: String, longest: Int, what: String) throws(TallyError) -> String {
        guard let text = try optionalText(key, longest: longest, what: what) else {
            throw .invalidArgument("\(key) is required (\(what))", field: field(key))
        }
        return text
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
