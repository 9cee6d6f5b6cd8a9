import Foundation

/// The envelope fields the gateway needs to route, time and answer a request, decoded without
/// building `args` (the worker decodes those, once). Validation is shared with `Envelope`, so the
/// gateway rejects what a worker would, but for the text of the values inside `args` (a string's
/// escapes and UTF-8, a number's range), which only the worker reads: JSON decoding reads a value
/// when it is asked for, and the gateway never asks. The worker refuses such a request with the
/// same error as any other text that is not JSON.
public struct EnvelopeHead: Sendable, Decodable {
    public var id: String?
    public var command: String
    public var deadlineMilliseconds: Int?
    public var idempotencyKey: String?
    public var token: String?
    public var locale: String?

    public var service: Substring { Envelope.service(of: command) }

    public init(from decoder: Decoder) throws {
        let fields = try EnvelopeFields(from: decoder)
        self = try fields.head()
        // Check that args is an object without materialising it.
        if fields.container.contains(AnyCodingKey("args")), try !fields.container.decodeNil(forKey: AnyCodingKey("args")) {
            do {
                _ = try fields.container.nestedContainer(keyedBy: AnyCodingKey.self, forKey: AnyCodingKey("args"))
            } catch {
                throw TallyError.invalidArgument("args must be a JSON object", field: "args")
            }
        }
    }

    init(id: String?, command: String, deadlineMilliseconds: Int?, idempotencyKey: String?, token: String?, locale: String?) {
        self.id = id
        self.command = command
        self.deadlineMilliseconds = deadlineMilliseconds
        self.idempotencyKey = idempotencyKey
        self.token = token
        self.locale = locale
    }

    public static func decode(_ data: Data) throws(TallyError) -> EnvelopeHead {
        try EnvelopeFields.decode(EnvelopeHead.self, from: data)
    }

    /// The request's `id` when the envelope is invalid but its `id` is fine, so the error reply can
    /// still say which request it answers.
    public static func recoverID(from data: Data) -> String? {
        struct IDOnly: Decodable { let id: String? }
        guard let id = (try? JSONDecoder().decode(IDOnly.self, from: data))?.id,
            !id.isEmpty, id.utf8.count <= EnvelopeFields.maximumTextLength
        else { return nil }
        return id
    }
}

/// A coding key for any string, to see every key a client sent.
struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// The top-level object of an envelope, and the validation of its scalar fields.
struct EnvelopeFields {
    static let allowed: Set<String> = ["id", "command", "args", "deadline_ms", "idempotency_key", "token", "locale"]
    static let maximumTextLength = 256

    let container: KeyedDecodingContainer<AnyCodingKey>

    init(from decoder: Decoder) throws {
        do {
            container = try decoder.container(keyedBy: AnyCodingKey.self)
        } catch {
            throw TallyError.invalidArgument(
                "the request must be a JSON object such as {\"command\": \"calc.tip\", \"args\": {...}}")
        }
        if let unknown = container.allKeys.map(\.stringValue).sorted().first(where: { !Self.allowed.contains($0) }) {
            throw TallyError.invalidArgument(
                "unknown envelope field '\(unknown)'; allowed: \(Self.allowed.sorted().joined(separator: ", "))",
                field: unknown)
        }
    }

    func head() throws -> EnvelopeHead {
        guard let command = try text("command") else {
            throw TallyError.invalidArgument("command is required, for example \"calc.tip\"", field: "command")
        }
        guard Envelope.isWellFormedCommand(command) else {
            throw TallyError.invalidArgument(
                "command '\(command)' must be <service>.<name> in lower-case letters, digits and _ (for example \"calc.tip\")",
                field: "command")
        }
        var deadline: Int?
        switch try value("deadline_ms") {
        case nil: deadline = nil
        case .integer(let ms)? where ms >= 1 && ms <= Int64(Envelope.maximumDeadlineMilliseconds): deadline = Int(ms)
        default:
            throw TallyError.invalidArgument(
                "deadline_ms must be a whole number of milliseconds from 1 to \(Envelope.maximumDeadlineMilliseconds)",
                field: "deadline_ms")
        }
        return EnvelopeHead(
            id: try text("id"), command: command, deadlineMilliseconds: deadline,
            idempotencyKey: try text("idempotency_key"), token: try text("token"), locale: try text("locale"))
    }

    private func value(_ key: String) throws -> JSONValue? {
        let value = try container.decodeIfPresent(JSONValue.self, forKey: AnyCodingKey(key))
        return value == .null ? nil : value
    }

    private func text(_ key: String) throws -> String? {
        switch try value(key) {
        case nil: return nil
        case .string(let text)?:
            guard !text.isEmpty, text.utf8.count <= Self.maximumTextLength else {
                throw TallyError.invalidArgument("\(key) must be 1 to \(Self.maximumTextLength) bytes long", field: key)
            }
            return text
        case let other?:
            throw TallyError.invalidArgument("\(key) must be a string, not \(other.typeName)", field: key)
        }
    }

    /// Decodes with one JSON parse, turning any decoding failure into an `invalid_argument`.
    static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws(TallyError) -> T {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let error as TallyError {
            throw error
        } catch {
            throw TallyError.invalidArgument("the request is not valid JSON (UTF-8 text with one JSON object)")
        }
    }
}
