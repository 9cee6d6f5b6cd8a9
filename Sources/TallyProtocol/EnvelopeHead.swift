import Foundation

/// The envelope fields the gateway needs to route, time and answer a request, read without
/// building `args` (the worker decodes those, once): the args are checked for syntax and type only.
/// Validation is shared with `Envelope`, so the gateway rejects exactly what a worker would.
public struct EnvelopeHead: Sendable {
    public var id: String?
    public var command: String
    public var deadlineMilliseconds: Int?
    public var idempotencyKey: String?
    public var token: String?
    public var locale: String?

    public var service: Substring { Envelope.service(of: command) }

    init(id: String?, command: String, deadlineMilliseconds: Int?, idempotencyKey: String?, token: String?, locale: String?) {
        self.id = id
        self.command = command
        self.deadlineMilliseconds = deadlineMilliseconds
        self.idempotencyKey = idempotencyKey
        self.token = token
        self.locale = locale
    }

    public static func decode(_ data: Data) throws(TallyError) -> EnvelopeHead {
        let fields = try EnvelopeFields(data, building: false)
        let head = try fields.head()
        switch fields.members["args"] {
        case nil, .null?, .object?: return head
        default: throw TallyError.invalidArgument("args must be a JSON object", field: "args")
        }
    }

    /// The request's `id` when the envelope is invalid but its `id` is fine, so the error reply can
    /// still say which request it answers.
    public static func recoverID(from data: Data) -> String? {
        guard case .object(let members)? = try? JSONReader.parse(data, skippingMember: "args"),
            case .string(let id)? = members["id"], !id.isEmpty, id.utf8.count <= EnvelopeFields.maximumTextLength
        else { return nil }
        return id
    }
}

/// The top-level members of an envelope, and the validation of its scalar fields.
struct EnvelopeFields {
    static let allowed: Set<String> = ["id", "command", "args", "deadline_ms", "idempotency_key", "token", "locale"]
    static let maximumTextLength = 256

    let members: [String: JSONValue]

    /// Reads the envelope's JSON; `args` is built only when `building`.
    init(_ data: Data, building: Bool) throws(TallyError) {
        let document: JSONValue
        do {
            document = try JSONReader.parse(data, skippingMember: building ? nil : "args")
        } catch {
            throw TallyError.invalidArgument("the request is not valid JSON (UTF-8 text with one JSON object)")
        }
        try self.init(document)
    }

    init(_ document: JSONValue) throws(TallyError) {
        guard case .object(let members) = document else {
            throw TallyError.invalidArgument(
                "the request must be a JSON object such as {\"command\": \"calc.tip\", \"args\": {...}}")
        }
        if let unknown = members.keys.filter({ !Self.allowed.contains($0) }).min() {
            throw TallyError.invalidArgument(
                "unknown envelope field '\(unknown)'; allowed: \(Self.allowed.sorted().joined(separator: ", "))",
                field: unknown)
        }
        self.members = members
    }

    func head() throws(TallyError) -> EnvelopeHead {
        guard let command = try text("command") else {
            throw TallyError.invalidArgument("command is required, for example \"calc.tip\"", field: "command")
        }
        guard Envelope.isWellFormedCommand(command) else {
            throw TallyError.invalidArgument(
                "command '\(command)' must be <service>.<name> in lower-case letters, digits and _ (for example \"calc.tip\")",
                field: "command")
        }
        var deadline: Int?
        switch value("deadline_ms") {
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

    /// A member, with `null` as absent.
    func value(_ key: String) -> JSONValue? {
        let value = members[key]
        return value == .null ? nil : value
    }

    private func text(_ key: String) throws(TallyError) -> String? {
        switch value(key) {
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
}
