import Foundation

/// A request as it travels: `{"id", "command", "args", "deadline_ms", "idempotency_key", "token", "locale",
/// "traceparent", "tracestate"}`.
///
/// The gateway decodes it without building `args` (it only routes); the worker decodes it once,
/// args included, and hands the args to the command's handler.
public struct Envelope: Sendable {
    public var id: String?
    public var command: String
    public var args: JSONValue
    public var deadlineMs: Int?
    public var idempotencyKey: String?
    public var token: String?
    public var locale: String?
    /// W3C trace context (`TraceParent`): the caller's span, which the request's spans join.
    public var traceparent: String?
    /// W3C `tracestate`, vendors' trace data passed along unread.
    public var tracestate: String?

    public init(
        id: String? = nil, command: String, args: JSONValue = .object([:]), deadlineMs: Int? = nil,
        idempotencyKey: String? = nil, token: String? = nil, locale: String? = nil, traceparent: String? = nil,
        tracestate: String? = nil
    ) {
        self.id = id
        self.command = command
        self.args = args
        self.deadlineMs = deadlineMs
        self.idempotencyKey = idempotencyKey
        self.token = token
        self.locale = locale
        self.traceparent = traceparent
        self.tracestate = tracestate
    }

    /// The service that serves the command: the part before the first dot.
    public var service: Substring { Envelope.service(of: command) }

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
        let head = try fields.head()
        id = head.id
        command = head.command
        deadlineMs = head.deadlineMs
        idempotencyKey = head.idempotencyKey
        token = head.token
        locale = head.locale
        traceparent = head.traceparent
        tracestate = head.tracestate
        args = .object(try fields.objectArgs())
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
