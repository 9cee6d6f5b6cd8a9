/// A member whose own members are written into the object that holds it, not under a key of its
/// own: a result that extends another (a leaderboard entry is a person with a rank and points)
/// declares the other as `@Inlined` and keeps synthesized `Encodable`, where it would otherwise
/// need a hand-written `encode(to:)` repeating its keys.
///
/// `TallyJSON` writes the members beside the holder's (keys are sorted, so where they stand does
/// not matter; of a key both have, the later stays, as for any key written twice). Another
/// encoder writes the value under its key.
@propertyWrapper
public struct Inlined<Value: Encodable>: Encodable {
    public var wrappedValue: Value

    public init(wrappedValue: Value) {
        self.wrappedValue = wrappedValue
    }

    public func encode(to encoder: any Encoder) throws {
        try wrappedValue.encode(to: encoder)
    }
}

extension Inlined: Sendable where Value: Sendable {}
extension Inlined: Equatable where Value: Equatable {}

/// What an `@Inlined` member hands its container: one type, not generic, so that `TallyJSON`'s
/// container tells it from every other value by a comparison of metatypes, at no cost to them.
public struct InlinedMembers: Encodable {
    let value: any Encodable

    public func encode(to encoder: any Encoder) throws {
        try value.encode(to: encoder)
    }
}

extension KeyedEncodingContainer {
    /// Synthesized `Encodable` calls this for an `@Inlined` member (the more specific overload).
    public mutating func encode<Value>(_ member: Inlined<Value>, forKey key: Key) throws {
        try encode(InlinedMembers(value: member.wrappedValue), forKey: key)
    }
}
