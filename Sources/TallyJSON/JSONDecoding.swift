import Foundation

extension TallyJSON {
    /// Reads `data` with `JSONReader` and decodes a `T` from it. Keys are looked up as
    /// `JSONKeyNaming` names them (`listID` in `list_id`). A text that is not JSON is a
    /// `DecodingError.dataCorrupted` at the top level; the other errors are `DecodingError`s whose
    /// coding path names the JSON keys (as on the wire) and array indices that lead to the fault.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        let value: JSONValue
        do {
            value = try JSONReader.parse(data)
        } catch {
            throw DecodingError.dataCorrupted(
                .init(codingPath: [], debugDescription: "The given data was not valid JSON.", underlyingError: error))
        }
        return try decode(type, from: value)
    }

    /// Decodes a `T` from a value already read.
    public static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try JSONValueDecoder(value, parent: nil, key: nil).decodeValue(T.self)
    }
}

/// A key as it is in the JSON text: the coding paths of errors name these, since that is what
/// whoever wrote the JSON can find.
struct JSONKey: CodingKey {
    private let name: String?
    let intValue: Int?

    init(_ string: String) {
        name = string
        intValue = nil
    }

    init(index: Int) {
        name = nil
        intValue = index
    }

    /// An index's text is made only when asked for (an error's path): arrays are encoded and
    /// decoded with a key per element.
    var stringValue: String { name ?? "Index \(intValue ?? 0)" }

    init?(stringValue: String) { self.init(stringValue) }
    init?(intValue: Int) { self.init(index: intValue) }
}

extension Array where Element == any CodingKey {
    /// The path from the top of an encoder's or decoder's tree of nodes down to `node`: each node
    /// knows only its parent and the key it sits under, so the path is walked up and reversed.
    init<Node: AnyObject>(pathTo node: Node, parent: (Node) -> Node?, key: (Node) -> (any CodingKey)?) {
        var path: [any CodingKey] = []
        var current: Node? = node
        while let node = current {
            if let key = key(node) { path.append(key) }
            current = parent(node)
        }
        self = path.reversed()
    }
}

/// The `Decoder` a value reads itself from: one node of a `JSONValue` tree.
final class JSONValueDecoder: Decoder {
    let value: JSONValue
    private let parent: JSONValueDecoder?
    private let key: JSONKey?

    init(_ value: JSONValue, parent: JSONValueDecoder?, key: JSONKey?) {
        self.value = value
        self.parent = parent
        self.key = key
    }

    /// Computed on demand: decoding pays nothing for a path only errors read.
    var codingPath: [CodingKey] { [CodingKey](pathTo: self, parent: { $0.parent }, key: { $0.key }) }

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else {
            throw mismatch([String: JSONValue].self, codingPath)
        }
        return KeyedDecodingContainer(KeyedJSONContainer<Key>(decoder: self, members: members))
    }

    func unkeyedContainer() throws -> UnkeyedDecodingContainer {
        guard case .array(let elements) = value else {
            throw mismatch([JSONValue].self, codingPath)
        }
        return UnkeyedJSONContainer(decoder: self, elements: elements)
    }

    func singleValueContainer() throws -> SingleValueDecodingContainer { SingleJSONContainer(decoder: self) }

    /// The error for a value of the wrong JSON type, as Foundation words it.
    func mismatch(_ type: Any.Type, _ path: [CodingKey]) -> DecodingError {
        Self.mismatch(type, value, path)
    }

    static func mismatch(_ type: Any.Type, _ value: JSONValue, _ path: [CodingKey]) -> DecodingError {
        if case .null = value {
            return .valueNotFound(type, .init(codingPath: path, debugDescription: "Expected \(type) value but found null instead."))
        }
        return .typeMismatch(type, .init(codingPath: path, debugDescription: "Expected to decode \(type) but found \(value.typeName) instead."))
    }

    /// This node as a `T`: scalars and JSON values directly, the types whose JSON is not their
    /// `Codable` form (`Data`, `URL`, `Decimal`, string-keyed dictionaries) as `TallyJSON` writes
    /// them, anything else through its `init(from:)`.
    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == String.self { return try decodeString() as! T }
        if T.self == Int64.self { return try decodeInteger(Int64.self) as! T }
        if T.self == Int.self { return try decodeInteger(Int.self) as! T }
        if T.self == Bool.self { return try decodeBool() as! T }
        if T.self == JSONValue.self { return value as! T }
        if T.self == Double.self { return try decodeDouble() as! T }
        if T.self == Data.self {
            guard let data = Data(base64Encoded: try decodeString()) else {
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "Encountered Data is not valid Base64."))
            }
            return data as! T
        }
        if T.self == URL.self {
            guard let url = URL(string: try decodeString()) else {
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "Invalid URL string."))
            }
            return url as! T
        }
        if T.self == Decimal.self {
            switch value {
            case .integer(let number): return Decimal(number) as! T
            case .number(let number): return (Decimal(string: "\(number)") ?? Decimal(number)) as! T
            default: throw mismatch(Decimal.self, codingPath)
            }
        }
        if let dictionary = T.self as? any DecodableStringDictionary.Type {
            return try dictionary.init(jsonMembersOf: self) as! T
        }
        return try T(from: self)
    }

    func decodeString() throws -> String { try Self.string(value, codingPath) }
    func decodeBool() throws -> Bool { try Self.bool(value, codingPath) }
    func decodeDouble() throws -> Double { try Self.double(value, codingPath) }
    func decodeInteger<T: FixedWidthInteger>(_ type: T.Type) throws -> T { try Self.integer(type, value, codingPath) }

    // The scalars, read from a value without a decoder for it: the path, for errors only, is
    // made only when one is thrown.

    static func string(_ value: JSONValue, _ path: @autoclosure () -> [CodingKey]) throws -> String {
        guard case .string(let text) = value else { throw mismatch(String.self, value, path()) }
        return text
    }

    static func bool(_ value: JSONValue, _ path: @autoclosure () -> [CodingKey]) throws -> Bool {
        guard case .bool(let flag) = value else { throw mismatch(Bool.self, value, path()) }
        return flag
    }

    static func double(_ value: JSONValue, _ path: @autoclosure () -> [CodingKey]) throws -> Double {
        switch value {
        case .integer(let number): return Double(number)
        case .number(let number): return number
        default: throw mismatch(Double.self, value, path())
        }
    }

    /// An integer of type `T`; a number it cannot hold exactly (a fraction, out of range) is
    /// refused, as Foundation refuses it.
    static func integer<T: FixedWidthInteger>(_ type: T.Type, _ value: JSONValue, _ path: @autoclosure () -> [CodingKey]) throws -> T {
        switch value {
        case .integer(let number):
            if let exact = T(exactly: number) { return exact }
            throw DecodingError.dataCorrupted(
                .init(codingPath: path(), debugDescription: "Parsed JSON number <\(number)> does not fit in \(T.self)."))
        case .number(let number):
            // Past Int64 (a UInt64 near its top) the reader keeps a Double.
            if let exact = T(exactly: number) { return exact }
            throw DecodingError.dataCorrupted(
                .init(codingPath: path(), debugDescription: "Parsed JSON number <\(number)> does not fit in \(T.self)."))
        default:
            throw mismatch(T.self, value, path())
        }
    }
}

private struct KeyedJSONContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: JSONValueDecoder
    let members: [String: JSONValue]

    var codingPath: [CodingKey] { decoder.codingPath }

    /// The keys present that name a `Key`, found by converting each candidate's Swift name.
    var allKeys: [Key] {
        members.keys.compactMap { json in
            for name in [json, JSONKeyNaming.camelCase(json)] {
                if let key = Key(stringValue: name), JSONKeyNaming.key(key.stringValue) == json { return key }
            }
            return nil
        }
    }

    func contains(_ key: Key) -> Bool { members[JSONKeyNaming.key(key.stringValue)] != nil }

    /// The member named by `key` and its name in the JSON, or `keyNotFound`.
    private func member(_ key: Key) throws -> (name: String, value: JSONValue) {
        let name = JSONKeyNaming.key(key.stringValue)
        guard let value = members[name] else {
            throw DecodingError.keyNotFound(
                JSONKey(name), .init(codingPath: codingPath, debugDescription: "No value associated with key \"\(name)\"."))
        }
        return (name, value)
    }

    private func path(_ name: String) -> [CodingKey] { codingPath + [JSONKey(name)] }

    private func scalar<T>(_ key: Key, _ read: (JSONValue, @autoclosure () -> [CodingKey]) throws -> T) throws -> T {
        let (name, value) = try member(key)
        return try read(value, path(name))
    }

    private func integer<T: FixedWidthInteger>(_ type: T.Type, _ key: Key) throws -> T {
        let (name, value) = try member(key)
        return try JSONValueDecoder.integer(type, value, path(name))
    }

    /// The member's value when present and not null.
    private func present(_ key: Key) -> (name: String, value: JSONValue)? {
        let name = JSONKeyNaming.key(key.stringValue)
        switch members[name] {
        case nil, .null?: return nil
        case let value?: return (name, value)
        }
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        guard case .null = try member(key).value else { return false }
        return true
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try scalar(key, JSONValueDecoder.bool) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try scalar(key, JSONValueDecoder.string) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try scalar(key, JSONValueDecoder.double) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { Float(try scalar(key, JSONValueDecoder.double)) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(type, key) }
    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { try integer(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(type, key) }
    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { try integer(type, key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let (name, value) = try member(key)
        return try JSONValueDecoder(value, parent: decoder, key: JSONKey(name)).decodeValue(type)
    }

    // Absent or null is nil, as Foundation reads an optional; the commonest optionals are read
    // without a decoder for the member.

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        guard let (name, value) = present(key) else { return nil }
        return try JSONValueDecoder.string(value, path(name))
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        guard let (name, value) = present(key) else { return nil }
        return try JSONValueDecoder.bool(value, path(name))
    }

    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        guard let (name, value) = present(key) else { return nil }
        return try JSONValueDecoder.integer(type, value, path(name))
    }

    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        guard let (name, value) = present(key) else { return nil }
        return try JSONValueDecoder.integer(type, value, path(name))
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let (name, value) = present(key) else { return nil }
        return try JSONValueDecoder(value, parent: decoder, key: JSONKey(name)).decodeValue(type)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        let (name, value) = try member(key)
        return try JSONValueDecoder(value, parent: decoder, key: JSONKey(name)).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> UnkeyedDecodingContainer {
        let (name, value) = try member(key)
        return try JSONValueDecoder(value, parent: decoder, key: JSONKey(name)).unkeyedContainer()
    }

    /// The member `super` (as `superEncoder()` writes it), null when absent.
    func superDecoder() throws -> Decoder {
        JSONValueDecoder(members["super"] ?? .null, parent: decoder, key: JSONKey("super"))
    }

    func superDecoder(forKey key: Key) throws -> Decoder {
        let name = JSONKeyNaming.key(key.stringValue)
        return JSONValueDecoder(members[name] ?? .null, parent: decoder, key: JSONKey(name))
    }
}

private struct UnkeyedJSONContainer: UnkeyedDecodingContainer {
    let decoder: JSONValueDecoder
    let elements: [JSONValue]
    private(set) var currentIndex = 0

    init(decoder: JSONValueDecoder, elements: [JSONValue]) {
        self.decoder = decoder
        self.elements = elements
    }

    var codingPath: [CodingKey] { decoder.codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    /// The decoder of the next element, and the reading position past it.
    private mutating func next(_ type: Any.Type) throws -> JSONValueDecoder {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type, .init(codingPath: codingPath + [JSONKey(index: currentIndex)], debugDescription: "Unkeyed container is at end."))
        }
        defer { currentIndex += 1 }
        return JSONValueDecoder(elements[currentIndex], parent: decoder, key: JSONKey(index: currentIndex))
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                JSONValue.self, .init(codingPath: codingPath + [JSONKey(index: currentIndex)], debugDescription: "Unkeyed container is at end."))
        }
        guard case .null = elements[currentIndex] else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type).decodeBool() }
    mutating func decode(_ type: String.Type) throws -> String { try next(type).decodeString() }
    mutating func decode(_ type: Double.Type) throws -> Double { try next(type).decodeDouble() }
    mutating func decode(_ type: Float.Type) throws -> Float { Float(try next(type).decodeDouble()) }
    mutating func decode(_ type: Int.Type) throws -> Int { try next(type).decodeInteger(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(type).decodeInteger(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(type).decodeInteger(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(type).decodeInteger(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(type).decodeInteger(type) }
    mutating func decode(_ type: Int128.Type) throws -> Int128 { try next(type).decodeInteger(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next(type).decodeInteger(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next(type).decodeInteger(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next(type).decodeInteger(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next(type).decodeInteger(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next(type).decodeInteger(type) }
    mutating func decode(_ type: UInt128.Type) throws -> UInt128 { try next(type).decodeInteger(type) }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next(type).decodeValue(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next([String: JSONValue].self).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> UnkeyedDecodingContainer {
        try next([JSONValue].self).unkeyedContainer()
    }

    mutating func superDecoder() throws -> Decoder { try next(JSONValue.self) }
}

private struct SingleJSONContainer: SingleValueDecodingContainer {
    let decoder: JSONValueDecoder

    var codingPath: [CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool {
        guard case .null = decoder.value else { return false }
        return true
    }

    func decode(_ type: Bool.Type) throws -> Bool { try decoder.decodeBool() }
    func decode(_ type: String.Type) throws -> String { try decoder.decodeString() }
    func decode(_ type: Double.Type) throws -> Double { try decoder.decodeDouble() }
    func decode(_ type: Float.Type) throws -> Float { Float(try decoder.decodeDouble()) }
    func decode(_ type: Int.Type) throws -> Int { try decoder.decodeInteger(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.decodeInteger(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.decodeInteger(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.decodeInteger(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.decodeInteger(type) }
    func decode(_ type: Int128.Type) throws -> Int128 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoder.decodeInteger(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt128.Type) throws -> UInt128 { try decoder.decodeInteger(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decodeValue(type) }
}
