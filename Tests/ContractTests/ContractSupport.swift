import Foundation
import ZeroMQ
import TallyLifecycle
import TallyProtocol
import TallyTesting

/// Where the contract lives: the repository root, found from this file's path.
enum Repository {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // ContractTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    static let schemas = root.appendingPathComponent("schemas")
    static let protocolDocument = root.appendingPathComponent("docs/protocol.md")
    static let validator = root.appendingPathComponent("Tests/ContractTests/validate.py")

    static func text(of url: URL) throws -> String {
        try String(contentsOf: url, encoding: .utf8)
    }

    /// Schema paths relative to `schemas/` (`commands/calc.tip.args.json`), sorted.
    static func schemaFiles(under folder: String = "") throws -> [String] {
        let base = folder.isEmpty ? schemas : schemas.appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(atPath: base.path) else { return [] }
        return walker.compactMap { $0 as? String }.filter { $0.hasSuffix(".json") }
            .map { folder.isEmpty ? $0 : "\(folder)/\($0)" }.sorted()
    }
}

/// The schema files that describe one command's `args` and `result`.
enum CommandSchema {
    static func args(_ command: String) -> String { "commands/\(command).args.json" }
    static func result(_ command: String) -> String { "commands/\(command).result.json" }

    /// The command a file under `schemas/commands/` is named after, or nil if the name is not
    /// `<command>.args.json` or `<command>.result.json`.
    static func command(ofFile name: String) -> String? {
        for suffix in [".args.json", ".result.json"] where name.hasSuffix(suffix) {
            let command = String(name.dropLast(suffix.count))
            return command.isEmpty ? nil : command
        }
        return nil
    }
}

/// One example in docs/protocol.md: a marker line, then a fenced ```json block.
///
///     <!-- example: request calc.tip -->
///     ```json
///     {"command": "calc.tip", "args": {...}}
///     ```
///
/// A request a signed-in person sends carries their token as a placeholder (`LiveValues`).
struct DocExample: Sendable, CustomStringConvertible {
    enum Kind: String, Sendable, CaseIterable {
        /// A whole envelope inside the contract, for a command in the catalog. Sent live.
        case request
        /// A whole request outside the contract (the schemas refuse it, or its command is not in the
        /// catalog), shown with the error it gets. Sent live.
        case badRequest = "bad-request"
        /// The `result` object of a command.
        case result
        /// A whole reply, ok or not.
        case reply
        /// A whole reply with `"ok": false`.
        case error
        /// A whole envelope shown for its shape; not sent.
        case envelope

        var takesCommand: Bool { self == .request || self == .result }
    }

    let kind: Kind
    let command: String?
    /// 1-based line of the marker.
    let line: Int
    let text: String

    var description: String {
        "docs/protocol.md:\(line) (\(kind.rawValue)\(command.map { " \($0)" } ?? ""))"
    }

    /// The example parsed as JSON, or nil if it is not JSON.
    var json: JSONValue? { try? JSONReader.parse(Data(text.utf8)) }

    /// Every example in a Markdown document, and every way the document breaks the example format.
    static func parse(_ document: String) -> (examples: [DocExample], problems: [String]) {
        let lines = document.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.hasSuffix("\r") ? String($0.dropLast()) : String($0)
        }
        var examples: [DocExample] = []
        var problems: [String] = []
        var index = 0
        var pending: (kind: Kind, command: String?, line: Int)?
        while index < lines.count {
            let line = lines[index]
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            let number = index + 1
            index += 1
            if trimmed.hasPrefix("<!-- example:") {
                if let pending { problems.append("docs/protocol.md:\(pending.line): example marker not followed by a ```json block") }
                pending = nil
                guard trimmed.hasSuffix("-->") else {
                    problems.append("docs/protocol.md:\(number): an example marker ends with -->")
                    continue
                }
                let words = trimmed.dropFirst("<!-- example:".count).dropLast("-->".count)
                    .split(separator: " ").map(String.init)
                guard let first = words.first, let kind = Kind(rawValue: first) else {
                    problems.append(
                        "docs/protocol.md:\(number): unknown example kind in \(trimmed); use one of \(Kind.allCases.map(\.rawValue).joined(separator: ", "))")
                    continue
                }
                if kind.takesCommand && words.count != 2 {
                    problems.append("docs/protocol.md:\(number): a \(kind.rawValue) example names its command: <!-- example: \(kind.rawValue) calc.tip -->")
                    continue
                }
                if !kind.takesCommand && words.count != 1 {
                    problems.append("docs/protocol.md:\(number): a \(kind.rawValue) example names no command: <!-- example: \(kind.rawValue) -->")
                    continue
                }
                pending = (kind, kind.takesCommand ? words[1] : nil, number)
                continue
            }
            if trimmed.hasPrefix("```") {
                let opensJSON = trimmed == "```json"
                // A fence closes on a line of at least as many backticks, so a ```` block can show ``` inside.
                let fence = trimmed.prefix(while: { $0 == "`" }).count
                var body: [String] = []
                var closed = false
                while index < lines.count {
                    let inner = lines[index]
                    index += 1
                    let innerTrimmed = inner.trimmingCharacters(in: .whitespaces)
                    if innerTrimmed.count >= fence, innerTrimmed.allSatisfy({ $0 == "`" }) {
                        closed = true
                        break
                    }
                    body.append(inner)
                }
                if !closed { problems.append("docs/protocol.md:\(number): code block never closed") }
                if let marker = pending {
                    if opensJSON {
                        examples.append(DocExample(
                            kind: marker.kind, command: marker.command, line: marker.line, text: body.joined(separator: "\n")))
                    } else {
                        problems.append("docs/protocol.md:\(marker.line): an example's block must open with exactly ```json")
                    }
                    pending = nil
                } else if opensJSON {
                    problems.append("docs/protocol.md:\(number): a ```json block without an <!-- example: ... --> marker right above it")
                }
                continue
            }
            if let marker = pending, !trimmed.isEmpty {
                problems.append("docs/protocol.md:\(marker.line): example marker not followed by a ```json block")
                pending = nil
            }
        }
        if let pending { problems.append("docs/protocol.md:\(pending.line): example marker not followed by a ```json block") }
        return (examples, problems)
    }
}

/// A request example and the example right after it, when that shows what the request gets back.
struct ExampleExchange: Sendable {
    let request: DocExample
    /// The `result`, `reply` or `error` example that comes next in the document, if the next one is one.
    var answer: DocExample?

    /// Pairs each request with the example right after it; every other example stands alone.
    static func group(_ examples: [DocExample]) -> (exchanges: [ExampleExchange], loose: [DocExample]) {
        var exchanges: [ExampleExchange] = []
        var loose: [DocExample] = []
        var previousWasRequest = false
        for example in examples {
            switch example.kind {
            case .request, .badRequest:
                exchanges.append(ExampleExchange(request: example))
                previousWasRequest = true
                continue
            case .result, .reply, .error:
                if previousWasRequest { exchanges[exchanges.count - 1].answer = example } else { loose.append(example) }
            case .envelope:
                loose.append(example)
            }
            previousWasRequest = false
        }
        return (exchanges, loose)
    }
}

/// Result fields whose value changes from call to call; comparisons with the live system skip them.
enum VaryingFields {
    static let byCommand: [String: Set<String>] = [
        "system.ping": ["uptime_ms"],
        "system.services": ["uptime_ms", "requests", "errors", "mean_handling_ms", "recent"],
        "accounts.create": ["created_at", "updated_at"],
        "accounts.list": ["created_at", "updated_at"],
        "accounts.get": ["created_at", "updated_at"],
        "accounts.update": ["created_at", "updated_at"],
        "accounts.delete": ["created_at", "updated_at"],
        "accounts.set_default": ["created_at", "updated_at"],
        "accounts.events": ["id", "time", "epoch", "created_at", "updated_at"],
        "shopping.create_list": ["created_at", "updated_at", "opened_at"],
        "shopping.get_list": ["created_at", "updated_at", "opened_at", "purchased_at"],
        "shopping.lists": ["created_at", "updated_at", "opened_at"],
        "shopping.rename_list": ["created_at", "updated_at", "opened_at"],
        "shopping.delete_list": ["created_at", "updated_at", "opened_at"],
        "shopping.add_item": ["created_at", "updated_at", "opened_at", "purchased_at"],
        "shopping.update_item": ["created_at", "updated_at", "opened_at", "purchased_at"],
        "shopping.remove_item": ["created_at", "updated_at", "opened_at", "purchased_at"],
        "shopping.mark_purchased": ["created_at", "updated_at", "opened_at", "purchased_at"],
        "shopping.mark_unpurchased": ["created_at", "updated_at", "opened_at", "purchased_at"],
        "shopping.set_price": ["created_at", "updated_at", "opened_at", "purchased_at"],
        "shopping.price_history": ["purchased_at"],
        "shopping.events": ["id", "time", "epoch", "created_at", "updated_at", "purchased_at"],
        "roster.create_team": ["created_at", "updated_at"],
        "roster.update_team": ["created_at", "updated_at"],
        "roster.teams": ["created_at", "updated_at"],
        "roster.team": ["created_at", "updated_at", "joined_at"],
        "roster.create_invite": ["code", "expires_at"],
        "roster.join": ["created_at", "updated_at", "joined_at"],
        "roster.set_role": ["joined_at"],
        "roster.remove_member": ["joined_at"],
        "roster.add_shift": ["created_at", "updated_at"],
        "roster.update_shift": ["created_at", "updated_at"],
        "roster.remove_shift": ["created_at", "updated_at"],
        "roster.offer": ["created_at", "updated_at"],
        "roster.take": ["created_at", "updated_at"],
        "roster.undo_take": ["created_at", "updated_at"],
        "roster.volunteer": ["created_at", "updated_at"],
        "roster.propose_swap": ["created_at", "updated_at"],
        "roster.accept_swap": ["created_at", "updated_at"],
        "roster.withdraw": ["created_at", "updated_at"],
        "roster.approve": ["created_at", "updated_at"],
        "roster.decline": ["created_at", "updated_at"],
        "roster.market": ["created_at", "updated_at"],
        "roster.trade": ["created_at", "updated_at", "at"],
        "roster.record_hours": ["recorded_at"],
        "roster.hours": ["recorded_at"],
        // Its DTSTAMP is the time of the request.
        "roster.ical": ["calendar"],
        "roster.events": ["id", "time", "epoch", "created_at", "updated_at", "joined_at", "expires_at"],
        "identity.signup": ["created_at"],
        "identity.login": ["access_token", "expires_at", "refresh_token", "refresh_expires_at", "session_id"],
        "identity.refresh": ["access_token", "expires_at", "refresh_token", "refresh_expires_at", "session_id"],
        "identity.whoami": ["created_at", "session_id", "session_started_at"],
        "identity.grant_role": ["created_at"],
        "identity.revoke_role": ["created_at"],
        "identity.users": ["created_at"],
        "identity.issue_service_token": ["service_token", "session_id"],
        "identity.service_login": ["access_token", "expires_at", "session_id"],
        "identity.events": ["id", "time", "epoch", "session_id"],
    ]

    /// `value` without the varying keys of `command`'s result, at any depth.
    static func removing(from value: JSONValue, command: String?) -> JSONValue {
        guard let command, let keys = byCommand[command] else { return value }
        func strip(_ value: JSONValue) -> JSONValue {
            switch value {
            case .object(let object): .object(object.filter { !keys.contains($0.key) }.mapValues(strip))
            case .array(let array): .array(array.map(strip))
            default: value
            }
        }
        return strip(value)
    }

    /// A reply without the varying keys inside its `result`.
    static func removing(fromReply reply: JSONValue, command: String?) -> JSONValue {
        guard case .object(var object) = reply, let result = object["result"] else { return reply }
        object["result"] = removing(from: result, command: command)
        return .object(object)
    }
}

extension JSONValue {
    /// Compact JSON with sorted keys, for messages.
    var compactText: String {
        String(decoding: (try? TallyJSON.encode(self)) ?? Data(), as: UTF8.self)
    }
}

/// What request examples show but only the live stack can give, filled in before a request is
/// sent: tokens, which carry a fresh key's signature and the time, written as placeholders
/// (`"<access token of ann>"`) and taken from the live replies of earlier examples (or signed with
/// the stack's key); and values the service makes up (an invite code), shown as the documented
/// result gave them and carried forward from the live one.
struct LiveValues {
    /// Result keys whose values the service makes up afresh each time.
    static let carriedForward: Set<String> = ["code"]

    /// Placeholder (without quotes) or documented value → the live value.
    private var values: [String: String] = [:]
    /// A token with the `service` role, signed with the stack's key.
    let serviceAccessToken: String

    init(serviceAccessToken: String) {
        self.serviceAccessToken = serviceAccessToken
        values["<access token with the service role>"] = serviceAccessToken
    }

    /// Remembers what a live result hands out: the tokens, by the user they are for, and the
    /// carried-forward values its documented result shows differently.
    mutating func learn(from result: JSONValue, documented: JSONValue?) {
        if let username = result["user"]?["username"]?.stringValue {
            for (field, kind) in [("access_token", "access token"), ("refresh_token", "refresh token"), ("service_token", "service token")] {
                if let token = result[field]?.stringValue { values["<\(kind) of \(username)>"] = token }
            }
        }
        if let documented { carry(documented, live: result) }
    }

    private mutating func carry(_ documented: JSONValue, live: JSONValue) {
        guard case .object(let shown) = documented, case .object(let given) = live else { return }
        for (key, value) in shown {
            if Self.carriedForward.contains(key), case .string(let text) = value, case .string(let real)? = given[key] {
                values[text] = real
            } else if let real = given[key] {
                carry(value, live: real)
            }
        }
    }

    /// `text` with each JSON string that is a placeholder or a carried value replaced by its live
    /// value; the token placeholders no earlier reply gave, in `missing`.
    func fill(_ text: String) -> (text: String, missing: [String]) {
        var filled = ""
        var missing: [String] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "\"") {
            filled += rest[..<open]
            // The string ends at the next quote that is not escaped.
            var end = rest.index(after: open)
            var escaped = false
            while end < rest.endIndex, escaped || rest[end] != "\"" {
                escaped = !escaped && rest[end] == "\\"
                end = rest.index(after: end)
            }
            guard end < rest.endIndex else { break }
            let string = String(rest[rest.index(after: open)..<end])
            if let live = values[string] {
                filled += "\"\(live)\""
            } else {
                if string.hasPrefix("<"), string.hasSuffix(">"), string.contains(" token") { missing.append(string) }
                filled += rest[open...end]
            }
            rest = rest[rest.index(after: end)...]
        }
        return (filled + rest, missing)
    }
}

/// Runs Tests/ContractTests/validate.py, which checks schemas and instances with Python's
/// `jsonschema` (draft 2020-12).
enum SchemaValidator {
    struct Item: Encodable, Sendable {
        var label: String
        /// Path of the schema file relative to `schemas/`.
        var schema: String
        var instance: JSONValue?
        /// Raw JSON, validated as it is written (instead of `instance`).
        var text: String?
        /// Also check that `text` has the key order of a Tally reply.
        var wireOrder: Bool?

        static func instance(_ value: JSONValue, schema: String, label: String) -> Item {
            Item(label: label, schema: schema, instance: value)
        }

        static func text(_ text: String, schema: String, label: String, wireOrder: Bool = false) -> Item {
            Item(label: label, schema: schema, text: text, wireOrder: wireOrder ? true : nil)
        }
    }

    struct Output: Decodable, Sendable {
        struct Result: Decodable, Sendable {
            let label: String
            let errors: [String]
        }

        let schemaFiles: [String]
        let schemaProblems: [String]
        let results: [Result]
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private struct Job: Encodable {
        let schemas: String
        let checkSchemas: Bool
        let items: [Item]
    }

    private struct Fatal: Decodable {
        let fatal: String
    }

    static let installHint = "the contract tests validate with Python 3 and its jsonschema package: pip install jsonschema"

    /// Runs validate.py on a thread of its own: waiting for a Python process must not hold one of
    /// the few threads of the concurrency pool that every other test of the run shares.
    static func run(items: [Item], checkSchemas: Bool = false) async throws -> Output {
        try await DedicatedThread.run(name: "validate.py") { try runBlocking(items: items, checkSchemas: checkSchemas) }
    }

    private static func runBlocking(items: [Item], checkSchemas: Bool) throws -> Output {
        let job = try TallyJSON.encode(Job(schemas: Repository.schemas.path, checkSchemas: checkSchemas, items: items))
        // Files, not pipes, and no Foundation `Process` (see `ChildSpawn`): the job is written
        // whole before the program starts, and its answers read once it has ended.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("validate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let files = (job: scratch.appendingPathComponent("job.json"), out: scratch.appendingPathComponent("out"), err: scratch.appendingPathComponent("err"))
        try job.write(to: files.job)
        let ended: ChildSpawn.Termination
        do {
            ended = try ChildSpawn.run(
                ["/usr/bin/env", "python3", Repository.validator.path], input: files.job.path, output: files.out.path, errors: files.err.path)
        } catch {
            throw Failure(description: "could not start /usr/bin/env python3 (\(error)); \(installHint)")
        }
        let stdout = (try? Data(contentsOf: files.out)) ?? Data()
        let stderr = (try? String(contentsOf: files.err, encoding: .utf8)) ?? ""
        if let fatal = try? TallyJSON.decode(Fatal.self, from: stdout) {
            throw Failure(description: "validate.py: \(fatal.fatal)")
        }
        guard ended.succeeded else {
            let reason = ended.status == 127 && !ended.signaled ? "python3 was not found" : "validate.py ended with \(ended.signaled ? "signal" : "status") \(ended.status)"
            throw Failure(description: "\(reason): \(stderr.suffix(2000)); \(installHint)")
        }
        do {
            let decoded = try TallyJSON.decode(Output.self, from: stdout)
            guard decoded.results.count == items.count else {
                throw Failure(description: "validate.py answered \(decoded.results.count) items of \(items.count)")
            }
            return decoded
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(description: "validate.py printed something unexpected (\(error)): \(String(decoding: stdout.prefix(2000), as: UTF8.self)) \(stderr.suffix(2000))")
        }
    }
}
