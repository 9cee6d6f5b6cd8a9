extension Arguments {
    /// A short text a person typed (a name, a label, a note): trimmed of whitespace and line breaks
    /// at either end, at most `longest` user-perceived characters (a flag or an accented letter
    /// counts one), without control characters. Nil when absent or `null`; blank is refused, with
    /// `what` (what the field holds) in the message.
    public func optionalText(_ key: String, longest: Int, what: String) throws(TallyError) -> String? {
        guard let raw = try optionalString(key) else { return nil }
        let typed = TypedText(raw)
        let text = typed.text
        let field = field(key)
        guard !text.isEmpty else { throw .invalidArgument("\(key) must not be blank (\(what))", field: field) }
        // The byte bound keeps storage bounded whatever the characters, far above any real ones.
        guard typed.characters <= longest, text.utf8.count <= longest * 16 else {
            throw .invalidArgument("\(key) must be at most \(longest) characters; this one has \(typed.characters)", field: field)
        }
        guard !typed.hasControls else {
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
}
