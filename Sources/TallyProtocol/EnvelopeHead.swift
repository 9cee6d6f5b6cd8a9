import Foundation

/// The envelope fields the gateway needs to route, time and answer a request, read without
/// building `args` (the worker decodes those, once): the args are checked for syntax and type only.
/// Validation is shared with `Envelope`, so the gateway rejects exactly what a worker would.
public struct EnvelopeHead: Encodable, Sendable {
    public var id: String?
    public var command: String
    public var deadlineMs: Int?
    public var idempotencyKey: String?
    public var token: String?
    public var locale: String?
    /// W3C trace context (`TraceParent`): the caller's span, which the request's spans join.
    public var traceparent: String?
    /// W3C `tracestate`, vendors' trace data passed along unread.
    public var tracestate: String?

    public var service: Substring { Envelope.service(of: command) }

    init(
        id: String?, command: String, deadlineMs: Int?, idempotencyKey: String?, token: String?, locale: String?,
        traceparent: String?, tracestate: String?
    ) {
        self.id = id
        self.command = command
        self.deadlineMs = deadlineMs
        self.idempotencyKey = idempotencyKey
        self.token = token
        self.locale = locale
        self.traceparent = traceparent
        self.tracestate = tracestate
    }

    public static func decode(_ data: Data) throws(TallyError) -> EnvelopeHead {
        let fields = try EnvelopeFields(data, building: false)
        let head = try fields.head()
        _ = try fields.objectArgs()
        return head
    }

    /// The request's `id` when the envelope is invalid but its `id` is fine, so the error reply can
    /// still say which request it answers.
    public static func recoverID(from data: Data) -> String? {
        var id: JSONValue?
        let isObject = try? JSONReader.readMembers(of: data) { key, reader throws(JSONReader.SyntaxError) in
            let value = key == "id" ? try reader.value() : try reader.skipValue()
            if key == "id" && id == nil { id = value }
        }
        guard isObject == true, case .string(let text)? = id, !text.isEmpty, text.utf8.count <= EnvelopeFields.maximumTextLength
        else { return nil }
        return text
    }
}

/// The top-level members of an envelope, read in one pass without building a dictionary, and the
/// validation of its scalar fields. Of duplicate keys the first counts, as in Foundation.
struct EnvelopeFields {
    static let allowed: Set<String> = [
        "id", "command", "args", "deadline_ms", "idempotency_key", "token", "locale", "traceparent", "tracestate",
    ]
    static let maximumTextLength = 256
    /// Access tokens are signed JWTs of a few hundred bytes (more with many roles).
    static let maximumTokenLength = 4096

    var id: JSONValue?
    var command: JSONValue?
    var deadline: JSONValue?
    var idempotencyKey: JSONValue?
    var token: JSONValue?
    var locale: JSONValue?
    var traceparent: JSONValue?
    var tracestate: JSONValue?
    /// Built only when asked for; otherwise an empty value of its type.
    var args: JSONValue?

    /// Reads the envelope's JSON; `args` is built only when `building`, else only checked.
    init(_ data: Data, building: Bool) throws(TallyError) {
        var unknown: String?
        let isObject: Bool
        do {
            var fields = EnvelopeFields()
            isObject = try JSONReader.readMembers(of: data) { key, reader throws(JSONReader.SyntaxError) in
                /// Reads the value (always: the reader must move past it) and keeps the first.
                func keep(_ slot: inout JSONValue?, built: Bool = true) throws(JSONReader.SyntaxError) {
                    let value = built ? try reader.value() : try reader.skipValue()
                    if slot == nil { slot = value }
                }
                switch key {
                case "args": try keep(&fields.args, built: building)
                case "id": try keep(&fields.id)
                case "command": try keep(&fields.command)
                case "deadline_ms": try keep(&fields.deadline)
                case "idempotency_key": try keep(&fields.idempotencyKey)
                case "token": try keep(&fields.token)
                case "locale": try keep(&fields.locale)
                case "traceparent": try keep(&fields.traceparent)
                case "tracestate": try keep(&fields.tracestate)
                default:
                    _ = try reader.skipValue()
                    if unknown.map({ key < $0 }) ?? true { unknown = key }
                }
            }
            self = fields
        } catch {
            throw TallyError.invalidArgument("the request is not valid JSON (UTF-8 text with one JSON object)")
        }
        guard isObject else { throw Self.notAnObject }
        if let unknown { throw Self.unknownField(unknown) }
    }

    private init() {}

    /// The members of an envelope decoded by other means (`Decodable`).
    init(_ document: JSONValue) throws(TallyError) {
        guard case .object(let members) = document else { throw Self.notAnObject }
        if let unknown = members.keys.filter({ !Self.allowed.contains($0) }).min() { throw Self.unknownField(unknown) }
        id = members["id"]
        command = members["command"]
        deadline = members["deadline_ms"]
        idempotencyKey = members["idempotency_key"]
        token = members["token"]
        locale = members["locale"]
        traceparent = members["traceparent"]
        tracestate = members["tracestate"]
        args = members["args"]
    }

    private static let notAnObject = TallyError.invalidArgument(
        "the request must be a JSON object such as {\"command\": \"calc.tip\", \"args\": {...}}")

    /// The alphabetically first key that is not an envelope field.
    private static func unknownField(_ key: String) -> TallyError {
        .invalidArgument("unknown envelope field '\(key)'; allowed: \(allowed.sorted().joined(separator: ", "))", field: key)
    }

    func head() throws(TallyError) -> EnvelopeHead {
        guard let command = try text(command, "command") else {
            throw TallyError.invalidArgument("command is required, for example \"calc.tip\"", field: "command")
        }
        guard Envelope.isWellFormedCommand(command) else {
            throw TallyError.invalidArgument(
                "command '\(command)' must be <service>.<name> in lower-case letters, digits and _ (for example \"calc.tip\")",
                field: "command")
        }
        var milliseconds: Int?
        switch Self.present(deadline) {
        case nil: milliseconds = nil
        case .integer(let ms)? where ms >= 1 && ms <= Int64(Envelope.maximumDeadlineMilliseconds): milliseconds = Int(ms)
        default:
            throw TallyError.invalidArgument(
                "deadline_ms must be a whole number of milliseconds from 1 to \(Envelope.maximumDeadlineMilliseconds)",
                field: "deadline_ms")
        }
        return EnvelopeHead(
            id: try text(id, "id"), command: command, deadlineMs: milliseconds,
            idempotencyKey: try text(idempotencyKey, "idempotency_key"), token: try text(token, "token", limit: Self.maximumTokenLength),
            locale: try text(locale, "locale"), traceparent: try traceParent(), tracestate: try text(tracestate, "tracestate", limit: 512))
    }

    /// `traceparent` when it is W3C trace context Tally can join; a malformed one is refused
    /// rather than silently replaced by a new trace, so a caller's tracing bug shows at once.
    private func traceParent() throws(TallyError) -> String? {
        guard let text = try text(traceparent, "traceparent") else { return nil }
        guard TraceParent(text) != nil else {
            throw TallyError.invalidArgument(
                "traceparent must be W3C trace context, 00-<32 hex trace id>-<16 hex span id>-<2 hex flags> in lower case, ids not all zero",
                field: "traceparent")
        }
        return text
    }

    /// `args` as an object, absent or `null` being `{}`: the one check of `args` that the gateway
    /// (on the empty value of its type that a check leaves) and the worker both make, so that
    /// they refuse the same requests with the same words.
    func objectArgs() throws(TallyError) -> [String: JSONValue] {
        switch Self.present(args) {
        case nil: return [:]
        case .object(let members)?: return members
        case let other?: throw TallyError.invalidArgument("args must be a JSON object, not \(other.typeName)", field: "args")
        }
    }

    /// A member, with `null` as absent.
    static func present(_ value: JSONValue?) -> JSONValue? { value == .null ? nil : value }

    private func text(_ value: JSONValue?, _ key: String, limit: Int = Self.maximumTextLength) throws(TallyError) -> String? {
        switch Self.present(value) {
        case nil: return nil
        case .string(let text)?:
            guard !text.isEmpty, text.utf8.count <= limit else {
                throw TallyError.invalidArgument("\(key) must be 1 to \(limit) bytes long", field: key)
            }
            return text
        case let other?:
            throw TallyError.invalidArgument("\(key) must be a string, not \(other.typeName)", field: key)
        }
    }
}
