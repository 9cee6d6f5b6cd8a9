import Foundation

/// A request as it travels: `{"id", "command", "args", "deadline_ms", "idempotency_key", "token", "locale",
/// "traceparent", "tracestate"}`.
///
/// The gateway decodes it without building `args` (it only routes); the worker decodes it once,
/// args included, and hands the args to the command's handler.
@dynamicMemberLookup
public struct Envelope: Sendable {
    /// Every field but `args`: what the gateway reads of a request too. Its fields read and write
    /// as the envelope's own (`envelope.token`).
    public var head: EnvelopeHead
    public var args: JSONValue

    public init(
        id: String? = nil, command: String, args: JSONValue = .object([:]), deadlineMs: Int? = nil,
        idempotencyKey: String? = nil, token: String? = nil, locale: String? = nil, traceparent: String? = nil,
        tracestate: String? = nil
    ) {
        head = EnvelopeHead(
            id: id, command: command, deadlineMs: deadlineMs, idempotencyKey: idempotencyKey, token: token, locale: locale,
            traceparent: traceparent, tracestate: tracestate)
        self.args = args
    }

    @inlinable
    public subscript<Value>(dynamicMember field: WritableKeyPath<EnvelopeHead, Value>) -> Value {
        get { head[keyPath: field] }
        set { head[keyPath: field] = newValue }
    }

    /// The service that serves the command: the part before the first dot.
    public var service: Substring { head.service }

    public static func service(of command: String) -> Substring {
        command.prefix(while: { $0 != "." })
    }

    public static let maximumDeadlineMilliseconds = 600_000
}

extension Envelope: Codable {
    public init(from decoder: Decoder) throws {
        try self.init(fields: EnvelopeFields(JSONValue(from: decoder)))
    }

    /// An envelope from its validated members: the head's fields, and `args` (absent or `null` is `{}`).
    init(fields: EnvelopeFields) throws(TallyError) {
        head = try fields.head()
        args = .object(try fields.objectArgs())
    }

    private enum ArgsKey: String, CodingKey { case args }

    /// The head's members and `args`, in one object.
    public func encode(to encoder: Encoder) throws {
        try head.encode(to: encoder)
        var container = encoder.container(keyedBy: ArgsKey.self)
        try container.encode(args, forKey: .args)
    }

    /// `service.name`, where each part is lower-case ASCII letters, digits and `_`; `mmi.service` qualifies.
    public static func isWellFormedCommand(_ command: String) -> Bool {
        var parts = 1
        var partLength = 0
        for byte in command.utf8 {
            switch byte {
            case UInt8(ascii: "."):
                guard partLength > 0 else { return false }
                parts += 1
                partLength = 0
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
                partLength += 1
            default:
                return false
            }
        }
        return parts >= 2 && partLength > 0
    }

    /// Reads an envelope in one pass over its JSON, args included.
    public static func decode(_ data: Data) throws(TallyError) -> Envelope {
        try Envelope(fields: EnvelopeFields(data, building: true))
    }

    public func encoded() -> Data {
        // Encoding plain values cannot fail.
        (try? TallyJSON.encode(self)) ?? Data()
    }
}
