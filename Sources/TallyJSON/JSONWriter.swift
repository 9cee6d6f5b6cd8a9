import Foundation

/// Writes `Encodable` values as Tally puts JSON on the wire and in its files: compact, the keys of
/// every object in sorted order, `/` not escaped, property names as `JSONKeyNaming` names them
/// (`listID` is `list_id`). The one JSON writer of the project: every reply body, stored result,
/// event, token and file is written here, and read back with `TallyJSON.decode` or `JSONReader`.
///
/// Values are first collected into a small tree (objects must be complete before their keys can
/// be sorted), then written out in one pass; a `JSONSelfWriting` value at the top writes itself
/// instead. Types whose `Codable` form is not how JSON carries them keep the formats Foundation's
/// `JSONEncoder` gives them by default, so files written before read the same: a `Double` in its
/// shortest form (`1` for 1.0, `1e-07`), `Data` as Base64, a `URL` as its absolute string, a
/// `Decimal` as a number, a `Date` as its seconds since 2001 (its own `Codable` form). Money never
/// uses any of them (it is a decimal string).
public enum TallyJSON {
    public static func encode<T: Encodable>(_ value: T) throws -> Data {
        var out: [UInt8] = []
        out.reserveCapacity(512)
        try encode(value, into: &out)
        return Data(out)
    }

    public static func encode<T: Encodable>(_ value: T, into out: inout [UInt8]) throws {
        if let value = value as? any JSONSelfWriting {
            value.writeJSON(into: &out)
            return
        }
        try JSONNode.make(value, parent: nil, key: nil).write(into: &out)
    }

    /// `text` as a JSON string literal, quotes included.
    public static func writeString(_ text: String, into out: inout [UInt8]) {
        JSONNode.writeString(text, into: &out)
    }
}

/// One value of the tree being encoded.
enum JSONNode {
    case null
    case bool(Bool)
    case integer(Int64)
    case unsigned(UInt64)
    case wide(String)  // Int128 and UInt128, in decimal
    case string(String)
    /// Text already written by Foundation (floating point, dates, data, URLs, decimals).
    case raw([UInt8])
    case object(ObjectBox)
    case array(ArrayBox)
    /// A `JSONValue`, written as it is (`write(_:into:)`) rather than copied into boxes first.
    case value(JSONValue)
    /// A value whose encoder is still being written to (`superEncoder`), read when the tree is written.
    case pending(NodeEncoder)

    final class ObjectBox {
        var members: [(key: String, value: JSONNode)]

        init() {
            members = []
            members.reserveCapacity(8)
        }
    }

    final class ArrayBox {
        var elements: [JSONNode] = []
    }

    /// The node for `value`; scalars are recognised without going through `Encodable`.
    /// The common scalar types are told by their metatype (a pointer comparison), not by dynamic
    /// casts, which would cost more than encoding them.
    static func make<T: Encodable>(_ value: T, parent: NodeEncoder?, key: CodingKey?) throws -> JSONNode {
        if T.self == String.self { return .string(unsafeBitCast(value, to: String.self)) }
        if T.self == Int.self { return .integer(Int64(unsafeBitCast(value, to: Int.self))) }
        if T.self == Bool.self { return .bool(unsafeBitCast(value, to: Bool.self)) }
        if T.self == Int64.self { return .integer(unsafeBitCast(value, to: Int64.self)) }
        if T.self == JSONValue.self { return .value(value as! JSONValue) }
        if T.self == Double.self { return .raw(try number(value as! Double, parent: parent, key: key)) }
        if T.self == Float.self { return .raw(try number(value as! Float, parent: parent, key: key)) }
        if T.self == Data.self { return .string((value as! Data).base64EncodedString()) }
        if T.self == URL.self { return .string((value as! URL).absoluteString) }
        if T.self == Decimal.self { return .raw(Array((value as! Decimal).description.utf8)) }
        if let dictionary = value as? any EncodableStringDictionary {
            return try dictionary.jsonNode(parent: parent, key: key)
        }
        let encoder = NodeEncoder(parent: parent, key: key)
        try value.encode(to: encoder)
        return encoder.node ?? .object(ObjectBox())
    }

    /// Writes `value`, its objects' keys in sorted order (and as they are: they are data). Throws
    /// where Foundation's `JSONEncoder` throws: a number that is not finite has no JSON.
    static func write(_ value: JSONValue, into out: inout [UInt8]) throws {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let flag): out.append(contentsOf: (flag ? "true" : "false").utf8)
        case .integer(let number): writeInteger(number, into: &out)
        case .number(let number): out.append(contentsOf: try Self.number(number, parent: nil, key: nil))
        case .string(let text): writeString(text, into: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for index in elements.indices {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                try write(elements[index], into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            // Keys are unique in a dictionary; sorted as `sortMembers` sorts them.
            var first = true
            for member in members.sorted(by: { keyPrecedes($0.key, $1.key) }) {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                writeString(member.key, into: &out)
                out.append(UInt8(ascii: ":"))
                try write(member.value, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// A floating-point number in its shortest form that reads back the same, without a `.0`
    /// (as Foundation writes it); one that is not finite has no JSON and is refused.
    static func number<F: BinaryFloatingPoint & LosslessStringConvertible>(
        _ number: F, parent: NodeEncoder?, key: CodingKey?
    ) throws -> [UInt8] {
        guard number.isFinite else {
            let path = (parent?.codingPath ?? []) + (key.map { [$0] } ?? [])
            throw EncodingError.invalidValue(number, .init(codingPath: path, debugDescription: "Unable to encode \(F.self).\(number) directly in JSON."))
        }
        var text = number.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return Array(text.utf8)
    }

    func write(into out: inout [UInt8]) throws {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let flag): out.append(contentsOf: (flag ? "true" : "false").utf8)
        case .integer(let number): Self.writeInteger(number, into: &out)
        case .unsigned(let number): out.append(contentsOf: String(number).utf8)
        case .wide(let digits): out.append(contentsOf: digits.utf8)
        case .string(let text): Self.writeString(text, into: &out)
        case .raw(let bytes): out.append(contentsOf: bytes)
        case .value(let value): try Self.write(value, into: &out)
        case .array(let box):
            out.append(UInt8(ascii: "["))
            for (index, element) in box.elements.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                try element.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let box):
            out.append(UInt8(ascii: "{"))
            Self.sortMembers(box)
            for (index, member) in box.members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                writeString(member.key, into: &out)
                out.append(UInt8(ascii: ":"))
                try member.value.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        case .pending(let encoder):
            try (encoder.node ?? .object(ObjectBox())).write(into: &out)
        }
    }

    /// Puts an object's members in key order, in place: keys compared byte by byte in UTF-8 (Unicode
    /// scalar order, without normalising, as Foundation sorts them); of a key encoded twice, the
    /// last value stays. An insertion sort (stable: objects have a handful of members, often in
    /// order already), run on the array taken out of its box, so that moving members costs no
    /// reference counting or exclusivity checks.
    private static func sortMembers(_ box: ObjectBox) {
        guard box.members.count > 1 else { return }
        var members: [(key: String, value: JSONNode)] = []
        swap(&members, &box.members)
        let duplicates = members.withUnsafeMutableBufferPointer { buffer in
            for index in 1..<buffer.count {
                var position = index
                while position > 0 && keyPrecedes(buffer[position].key, buffer[position - 1].key) {
                    buffer.swapAt(position, position - 1)
                    position -= 1
                }
            }
            return (1..<buffer.count).contains { !keyPrecedes(buffer[$0 - 1].key, buffer[$0].key) }
        }
        if duplicates {
            // Equal keys stay in the order they were encoded; the earlier ones go.
            var kept: [(key: String, value: JSONNode)] = []
            kept.reserveCapacity(members.count)
            for member in members {
                if let last = kept.last, !keyPrecedes(last.key, member.key) { kept.removeLast() }
                kept.append(member)
            }
            members = kept
        }
        swap(&members, &box.members)
    }

    /// Whether key `a` sorts before `b`, byte by byte in UTF-8, compared in place rather than
    /// through the generic `lexicographicallyPrecedes`.
    static func keyPrecedes(_ a: String, _ b: String) -> Bool {
        let result = a.utf8.withContiguousStorageIfAvailable { left in
            b.utf8.withContiguousStorageIfAvailable { right -> Bool in
                let common = min(left.count, right.count)
                if common > 0, let l = left.baseAddress, let r = right.baseAddress {
                    let order = memcmp(l, r, common)
                    if order != 0 { return order < 0 }
                }
                return left.count < right.count
            }
        }
        return (result ?? nil) ?? a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    private func writeString(_ text: String, into out: inout [UInt8]) { Self.writeString(text, into: &out) }

    static func writeInteger(_ number: Int64, into out: inout [UInt8]) {
        if number >= 0 && number < 10 {
            out.append(UInt8(ascii: "0") + UInt8(number))
            return
        }
        out.append(contentsOf: String(number).utf8)
    }

    /// A string literal as `JSONEncoder` writes it: `"` and `\` escaped, control characters as
    /// `\b \t \n \f \r` or `\u00xx`, everything else (`/`, DEL, non-ASCII) as it is.
    static func writeString(_ text: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            var runStart = 0
            for index in 0..<bytes.count {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                runStart = index + 1
                out.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(byte)
                case 0x08: out.append(UInt8(ascii: "b"))
                case 0x09: out.append(UInt8(ascii: "t"))
                case 0x0A: out.append(UInt8(ascii: "n"))
                case 0x0C: out.append(UInt8(ascii: "f"))
                case 0x0D: out.append(UInt8(ascii: "r"))
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    out.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
        }
        out.append(UInt8(ascii: "\""))
    }
}

/// The `Encoder` a value writes itself to: it records the one value, or the one container, it is given.
final class NodeEncoder: Encoder {
    var node: JSONNode?
    private unowned(unsafe) let parent: NodeEncoder?
    private let key: CodingKey?

    init(parent: NodeEncoder?, key: CodingKey?) {
        self.parent = parent
        self.key = key
    }

    /// Computed on demand, so encoding pays nothing for a path nobody reads.
    var codingPath: [CodingKey] { [CodingKey](pathTo: self, parent: { $0.parent }, key: { $0.key }) }

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object(let box)? = node { return KeyedEncodingContainer(KeyedNodeContainer(encoder: self, box: box)) }
        let box = JSONNode.ObjectBox()
        node = .object(box)
        return KeyedEncodingContainer(KeyedNodeContainer(encoder: self, box: box))
    }

    func unkeyedContainer() -> UnkeyedEncodingContainer {
        if case .array(let box)? = node { return UnkeyedNodeContainer(encoder: self, box: box) }
        let box = JSONNode.ArrayBox()
        node = .array(box)
        return UnkeyedNodeContainer(encoder: self, box: box)
    }

    func singleValueContainer() -> SingleValueEncodingContainer { SingleNodeContainer(encoder: self) }
}

private struct KeyedNodeContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: NodeEncoder
    let box: JSONNode.ObjectBox

    var codingPath: [CodingKey] { encoder.codingPath }

    private func add(_ key: Key, _ node: JSONNode) { box.members.append((JSONKeyNaming.key(key.stringValue), node)) }

    mutating func encodeNil(forKey key: Key) throws { add(key, .null) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { add(key, .bool(value)) }
    mutating func encode(_ value: String, forKey key: Key) throws { add(key, .string(value)) }
    mutating func encode(_ value: Int, forKey key: Key) throws { add(key, .integer(Int64(value))) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { add(key, .integer(Int64(value))) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { add(key, .integer(Int64(value))) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { add(key, .integer(Int64(value))) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { add(key, .integer(value)) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { add(key, .unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { add(key, .unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { add(key, .unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { add(key, .unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { add(key, .unsigned(value)) }
    mutating func encode(_ value: Int128, forKey key: Key) throws { add(key, .wide(String(value))) }
    mutating func encode(_ value: UInt128, forKey key: Key) throws { add(key, .wide(String(value))) }
    mutating func encode(_ value: Double, forKey key: Key) throws { add(key, .raw(try JSONNode.number(value, parent: encoder, key: key))) }
    mutating func encode(_ value: Float, forKey key: Key) throws { add(key, .raw(try JSONNode.number(value, parent: encoder, key: key))) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        if T.self == InlinedMembers.self { return try inline(unsafeBitCast(value, to: InlinedMembers.self), at: key) }
        add(key, try JSONNode.make(value, parent: encoder, key: key))
    }

    /// An `@Inlined` member: its object's members join this object's.
    private func inline(_ inlined: InlinedMembers, at key: Key) throws {
        let member = NodeEncoder(parent: encoder, key: key)
        try inlined.value.encode(to: member)
        guard case .object(let object)? = member.node else {
            throw EncodingError.invalidValue(
                inlined.value, .init(codingPath: member.codingPath, debugDescription: "An @Inlined member must encode as an object."))
        }
        box.members.append(contentsOf: object.members)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested = JSONNode.ObjectBox()
        add(key, .object(nested))
        return KeyedEncodingContainer(KeyedNodeContainer<NestedKey>(encoder: NodeEncoder(parent: encoder, key: key), box: nested))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> UnkeyedEncodingContainer {
        let nested = JSONNode.ArrayBox()
        add(key, .array(nested))
        return UnkeyedNodeContainer(encoder: NodeEncoder(parent: encoder, key: key), box: nested)
    }

    mutating func superEncoder() -> Encoder {
        let sub = NodeEncoder(parent: encoder, key: JSONKey("super"))
        box.members.append(("super", .pending(sub)))
        return sub
    }

    mutating func superEncoder(forKey key: Key) -> Encoder {
        let sub = NodeEncoder(parent: encoder, key: key)
        add(key, .pending(sub))
        return sub
    }
}

private struct UnkeyedNodeContainer: UnkeyedEncodingContainer, KeylessNodeContainer {
    let encoder: NodeEncoder
    let box: JSONNode.ArrayBox

    var codingPath: [CodingKey] { encoder.codingPath }
    var count: Int { box.elements.count }

    var nextKey: CodingKey? { JSONKey(index: count) }

    func add(_ node: JSONNode) { box.elements.append(node) }

    // The standard library gives these two a default of its own, so each container names its own.
    mutating func encode(_ value: Int128) throws { add(.wide(String(value))) }
    mutating func encode(_ value: UInt128) throws { add(.wide(String(value))) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = JSONNode.ObjectBox()
        let key = JSONKey(index: count)
        add(.object(nested))
        return KeyedEncodingContainer(KeyedNodeContainer<NestedKey>(encoder: NodeEncoder(parent: encoder, key: key), box: nested))
    }

    mutating func nestedUnkeyedContainer() -> UnkeyedEncodingContainer {
        let nested = JSONNode.ArrayBox()
        let key = JSONKey(index: count)
        add(.array(nested))
        return UnkeyedNodeContainer(encoder: NodeEncoder(parent: encoder, key: key), box: nested)
    }

    mutating func superEncoder() -> Encoder {
        let sub = NodeEncoder(parent: encoder, key: JSONKey(index: count))
        add(.pending(sub))
        return sub
    }
}

private struct SingleNodeContainer: SingleValueEncodingContainer, KeylessNodeContainer {
    let encoder: NodeEncoder

    var codingPath: [CodingKey] { encoder.codingPath }
    var nextKey: CodingKey? { nil }

    func add(_ node: JSONNode) { encoder.node = node }

    // The standard library gives these two a default of its own, so each container names its own.
    mutating func encode(_ value: Int128) throws { add(.wide(String(value))) }
    mutating func encode(_ value: UInt128) throws { add(.wide(String(value))) }
}

/// The containers whose values have no keys of their own (an array's elements, a single value)
/// make each value's node alike: written once here, where each container says only where a node
/// goes and which key an error at the next value names.
private protocol KeylessNodeContainer {
    var encoder: NodeEncoder { get }
    var nextKey: CodingKey? { get }
    func add(_ node: JSONNode)
}

extension KeylessNodeContainer {
    mutating func encodeNil() throws { add(.null) }
    mutating func encode(_ value: Bool) throws { add(.bool(value)) }
    mutating func encode(_ value: String) throws { add(.string(value)) }
    mutating func encode(_ value: Int) throws { add(.integer(Int64(value))) }
    mutating func encode(_ value: Int8) throws { add(.integer(Int64(value))) }
    mutating func encode(_ value: Int16) throws { add(.integer(Int64(value))) }
    mutating func encode(_ value: Int32) throws { add(.integer(Int64(value))) }
    mutating func encode(_ value: Int64) throws { add(.integer(value)) }
    mutating func encode(_ value: UInt) throws { add(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt8) throws { add(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt16) throws { add(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt32) throws { add(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt64) throws { add(.unsigned(value)) }
    mutating func encode(_ value: Double) throws { add(.raw(try JSONNode.number(value, parent: encoder, key: nextKey))) }
    mutating func encode(_ value: Float) throws { add(.raw(try JSONNode.number(value, parent: encoder, key: nextKey))) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        add(try JSONNode.make(value, parent: encoder, key: nextKey))
    }
}
