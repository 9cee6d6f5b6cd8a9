/// Any JSON value, decoded exactly: integers stay integers and strings stay strings, so decimal
/// amounts sent as strings never pass through binary floating point.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int64)
    /// A number with a fraction or exponent. Kept only to report it; money never uses it.
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// The JSON type's name, for error messages.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .integer, .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

extension JSONValue: Codable {
    /// How deeply arrays and objects may nest in a document read as `JSONValue`s: far beyond
    /// anything Tally sends (its args, events and replies nest a few levels), and far below what
    /// would overflow a stack. Decoding recurses once per level, a few KB of stack each, and the
    /// JSON parser lets through 512 levels, so before this bound an event of 2 KB nesting objects
    /// 400 deep crashed the notifier, whose inlet runs on a thread with a 1 MiB stack.
    public static let maximumDepth = 64

    /// Whether arrays and objects nest in this value more than `limit` levels deep, counting the
    /// innermost value (a scalar or an empty container) as one level. Looks no deeper than
    /// `limit`, so it is cheap on any value.
    public func nests(deeperThan limit: Int) -> Bool {
        guard limit > 0 else { return true }
        switch self {
        case .array(let elements): return elements.contains { $0.nests(deeperThan: limit - 1) }
        case .object(let members): return members.values.contains { $0.nests(deeperThan: limit - 1) }
        default: return false
        }
    }

    /// For decoders other than `TallyJSON`'s, which hands a `JSONValue` over as it is.
    public init(from decoder: Decoder) throws {
        guard decoder.codingPath.count < Self.maximumDepth else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "JSON nested more than \(Self.maximumDepth) levels deep is refused"))
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if var array = try? decoder.unkeyedContainer() {
            // Elements decode with `try`, so an error inside one (too deep) is the array's error.
            var elements: [JSONValue] = []
            while !array.isAtEnd { elements.append(try array.decode(JSONValue.self)) }
            self = .array(elements)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue {
    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    public subscript(index: Int) -> JSONValue? {
        if case .array(let array) = self, array.indices.contains(index) { return array[index] }
        return nil
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var intValue: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }
}
