import Foundation

/// A value that writes its own JSON: byte for byte what `TallyJSON` writes from its `Encodable`
/// form (compact, keys in sorted order), without the tree that form is collected into first.
///
/// For the replies on the hottest paths only: collecting `calc.tip`'s reply into that tree and
/// writing it out was a quarter of the calc worker's request thread (`docs/performance.md`). A
/// second way to write a value must never disagree with the first, so each adopter has a test
/// that holds the two equal on every shape its value takes.
public protocol JSONSelfWriting: Encodable {
    func writeJSON(into out: inout [UInt8])
}

/// Writes the members of one JSON object, in the order given, which must be the keys' sorted
/// order (as `TallyJSON` sorts them: byte by byte in UTF-8). Keys are literals that need no
/// escaping. The caller writes the braces around them, or `object` does.
public struct JSONMembers {
    private var count = 0

    public init() {}

    /// One object, its members written by `body`, braces included; empty if `body` throws (a
    /// number that is not finite), where `TallyJSON` would throw.
    public static func object(
        reservingCapacity capacity: Int, _ body: (inout JSONMembers, inout [UInt8]) throws -> Void
    ) -> Data {
        var out: [UInt8] = []
        out.reserveCapacity(capacity)
        var members = JSONMembers()
        out.append(UInt8(ascii: "{"))
        do {
            try body(&members, &out)
        } catch {
            return Data()
        }
        out.append(UInt8(ascii: "}"))
        return Data(out)
    }

    /// `"key":`, after a comma unless it is the first member; the caller writes the value.
    public mutating func key(_ key: StaticString, into out: inout [UInt8]) {
        if count > 0 { out.append(UInt8(ascii: ",")) }
        count += 1
        out.append(UInt8(ascii: "\""))
        out.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        out.append(UInt8(ascii: "\""))
        out.append(UInt8(ascii: ":"))
    }

    public mutating func string(_ key: StaticString, _ value: String, into out: inout [UInt8]) {
        self.key(key, into: &out)
        JSONNode.writeString(value, into: &out)
    }

    /// A string member that is left out when nil, as `Encodable` leaves out an optional.
    public mutating func optionalString(_ key: StaticString, _ value: String?, into out: inout [UInt8]) {
        guard let value else { return }
        string(key, value, into: &out)
    }

    /// Throws where `TallyJSON` throws: a number in `value` that is not finite has no JSON.
    public mutating func value(_ key: StaticString, _ value: JSONValue, into out: inout [UInt8]) throws {
        self.key(key, into: &out)
        try JSONNode.write(value, into: &out)
    }

    public mutating func integer(_ key: StaticString, _ value: Int64, into out: inout [UInt8]) {
        self.key(key, into: &out)
        JSONNode.writeInteger(value, into: &out)
    }

    /// An array of self-writing values.
    public mutating func array<Element: JSONSelfWriting>(_ key: StaticString, _ elements: [Element], into out: inout [UInt8]) {
        self.key(key, into: &out)
        out.append(UInt8(ascii: "["))
        for index in elements.indices {
            if index > elements.startIndex { out.append(UInt8(ascii: ",")) }
            elements[index].writeJSON(into: &out)
        }
        out.append(UInt8(ascii: "]"))
    }
}
