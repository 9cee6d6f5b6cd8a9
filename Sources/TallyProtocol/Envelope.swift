import Foundation

/// A request as it travels: `{"id", "command", "args", "deadline_ms", "idempotency_key", "token", "locale"}`.
///
/// The gateway decodes it without building `args` (it only routes); the worker decodes it once,
/// args included, and hands the args to the command's handler.
public struct Envelope: Sendable {
    public var id: String?
    public var command: String
    public var args: JSONValue
    public var deadlineMilliseconds: Int?
    public var idempotencyKey: String?
    public var token: String?
    public var locale: String?

    public init(
        id: String? = nil, command: String, args: JSONValue = .object([:]), deadlineMilliseconds: Int? = nil,
        idempotencyKey: String? = nil, token: String? = nil, locale: String? = nil
    ) {
        self.id = id
        self.command = command
        self.args = args
        self.deadlineMilliseconds = deadlineMilliseconds
        self.idempotencyKey = idempotencyKey
        self.token = token
        self.locale = locale
    }

    /// The service that serves the command: the part before the first dot.
    public var service: Substring { Envelope.service(of: command) }

    public static func service(of command: String) -> Substring {
        command.prefix(while: { $0 != "." })
    }

    public static let maximumDeadlineMilliseconds = 600_000
    static let maximumTextLength = 256

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, command, args, token, locale
        case deadlineMilliseconds = "deadline_ms"
        case idempotencyKey = "idempotency_key"
    }
}

extension Envelope: Codable {
    public init(from decoder: Decoder) throws {
        let raw: [String: JSONValue]
        do {
            guard case .object(let object) = try JSONValue(from: decoder) else {
                throw TallyError.invalidArgument("the request must be a JSON object such as {\"command\": \"calc.tip\", \"args\": {...}}")
            }
            raw = object
        } catch let error as TallyError {
            throw error
        } catch {
            throw TallyError.invalidArgument("the request is not valid JSON")
        }
        let known = Set(CodingKeys.allCases.map(\.stringValue))
        if let unknown = raw.keys.sorted().first(where: { !known.contains($0) }) {
            throw TallyError.invalidArgument(
                "unknown envelope field '\(unknown)'; allowed: args, command, deadline_ms, id, idempotency_key, locale, token",
                field: unknown)
        }
        id = try Envelope.text(raw, "id")
        guard let command = try Envelope.text(raw, "command") else {
            throw TallyError.invalidArgument("command is required, for example \"calc.tip\"", field: "command")
        }
        guard Envelope.isWellFormedCommand(command) else {
            throw TallyError.invalidArgument(
                "command '\(command)' must be <service>.<name> in lower case letters, digits and _ (for example \"calc.tip\")",
                field: "command")
        }
        self.command = command
        switch raw["args"] {
        case nil, .null?: args = .object([:])
        case .object?: args = raw["args"]!
        case let other?:
            throw TallyError.invalidArgument("args must be a JSON object, not \(other.typeName)", field: "args")
        }
        switch raw["deadline_ms"] {
        case nil, .null?: deadlineMilliseconds = nil
        case .integer(let value)? where value >= 1 && value <= Int64(Envelope.maximumDeadlineMilliseconds):
            deadlineMilliseconds = Int(value)
        default:
            throw TallyError.invalidArgument(
                "deadline_ms must be a whole number of milliseconds from 1 to \(Envelope.maximumDeadlineMilliseconds)",
                field: "deadline_ms")
        }
        idempotencyKey = try Envelope.text(raw, "idempotency_key")
        token = try Envelope.text(raw, "token")
        locale = try Envelope.text(raw, "locale")
    }

    private static func text(_ raw: [String: JSONValue], _ key: String) throws -> String? {
        switch raw[key] {
        case nil, .null?: return nil
        case .string(let value)?:
            guard !value.isEmpty, value.utf8.count <= maximumTextLength else {
                throw TallyError.invalidArgument("\(key) must be 1 to \(maximumTextLength) bytes long", field: key)
            }
            return value
        case let other?:
            throw TallyError.invalidArgument("\(key) must be a string, not \(other.typeName)", field: key)
        }
    }

    /// `service.name`, where each part is lower-case ASCII letters, digits and `_`; `mmi.service` qualifies.
    public static func isWellFormedCommand(_ command: String) -> Bool {
        let parts = command.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count >= 2 else { return false }
        return parts.allSatisfy { part in
            !part.isEmpty && part.allSatisfy { byte in
                (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                    || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_")
            }
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(id, forKey: .id)
        try container.encode(command, forKey: .command)
        try container.encode(args, forKey: .args)
        try container.encodeIfPresent(deadlineMilliseconds, forKey: .deadlineMilliseconds)
        try container.encodeIfPresent(idempotencyKey, forKey: .idempotencyKey)
        try container.encodeIfPresent(token, forKey: .token)
        try container.encodeIfPresent(locale, forKey: .locale)
    }

    public static func decode(_ data: Data) throws(TallyError) -> Envelope {
        do {
            return try JSONDecoder().decode(Envelope.self, from: data)
        } catch let error as TallyError {
            throw error
        } catch {
            throw TallyError.invalidArgument("the request is not valid JSON")
        }
    }

    public func encoded() -> Data {
        // Encoding plain values cannot fail.
        (try? JSONEncoder.tally.encode(self)) ?? Data()
    }
}

extension JSONEncoder {
    /// The encoder for everything Tally writes on the wire: compact, `/` left alone.
    public static var tally: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }
}
