import TallyProtocol

/// A name shown back to people, of a person or an item: 1 to 40 characters with no space at
/// either end, so the result lists read cleanly and a stray space is caught rather than kept.
enum Label {
    /// Characters here are Unicode scalars, as JSON Schema's `maxLength` counts them.
    static let longest = 40

    static func read(_ value: JSONValue, field: String, name: String) throws(TallyError) -> String {
        guard case .string(let text) = value else {
            throw .invalidArgument("\(name) must be a string, not \(value.typeName)", field: field)
        }
        guard let first = text.unicodeScalars.first, let last = text.unicodeScalars.last else {
            throw .invalidArgument("\(name) must not be empty", field: field)
        }
        guard !first.properties.isWhitespace, !last.properties.isWhitespace else {
            throw .invalidArgument("\(name) must not start or end with a space", field: field)
        }
        guard text.unicodeScalars.count <= longest else {
            throw .invalidArgument("\(name) must be at most \(longest) characters", field: field)
        }
        return text
    }
}
