import Foundation
import TallyCatalog
import TallyProtocol
import TallyTesting
import Testing

/// The wire contract — docs/protocol.md and schemas/ — checked against itself, against
/// TallyProtocol, and against a running gateway with a worker of each service.
///
/// Schemas are checked by Python's jsonschema (draft 2020-12) through validate.py: `pip install jsonschema`.
@Suite struct ContractTests {
    // MARK: 1. Schemas

    @Test func everySchemaIsValidDraft202012AndEveryRefResolves() async throws {
        let output = try await SchemaValidator.run(items: [], checkSchemas: true)
        for problem in output.schemaProblems { Issue.record(Comment(rawValue: problem)) }
        for required in ["envelope.json", "reply.json", "error.json"] {
            #expect(output.schemaFiles.contains(required), "schemas/\(required) is missing")
        }
    }

    @Test func schemasAgreeWithTallyProtocol() throws {
        // error.json lists exactly the codes of ErrorCode.
        let error = try schemaObject("error.json")
        let codes = error["properties"]?["code"]?["enum"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(Set(codes) == Set(ErrorCode.allCases.map(\.rawValue)), "error.json code enum: \(codes)")
        #expect(codes.count == ErrorCode.allCases.count)

        // envelope.json has exactly the fields an Envelope writes, and the same deadline range.
        let full = Envelope(
            id: "i", command: "calc.tip", args: ["a": 1], deadlineMs: 1, idempotencyKey: "k", token: "t", locale: "l",
            traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", tracestate: "s")
        let written = try JSONReader.parse(full.encoded()).objectValue?.keys.sorted() ?? []
        let envelope = try schemaObject("envelope.json")
        let properties = envelope["properties"]?.objectValue?.keys.sorted() ?? []
        #expect(properties == written, "envelope.json properties vs the fields of Envelope")
        #expect(envelope["additionalProperties"] == false)
        #expect(envelope["properties"]?["deadline_ms"]?["maximum"]?.intValue == Int64(Envelope.maximumDeadlineMilliseconds))
    }

    /// The gateway serves the schemas the binary embeds (`system.describe`); they must be the files
    /// of schemas/ that everything here checks, so that there is one source.
    @Test func theSchemasEmbeddedInTheBinaryAreTheFilesOfSchemas() throws {
        let files = try Repository.schemaFiles()
        let embedded = ServiceCatalog.schemas.documents
        let regenerate = "Sources/TallyCatalog/Schemas.generated.swift is out of date: run python3 ops/schemas/embed.py"
        #expect(embedded.keys.sorted() == files, "\(regenerate)")
        for file in files where embedded[file] != nil {
            if try embedded[file] != schemaObject(file) {
                Issue.record("schemas/\(file) differs from its embedded copy. \(regenerate)")
            }
        }
    }

    // MARK: 2. Catalog, schemas and document cover the same commands

    @Test func everyCatalogCommandHasSchemasADocSectionAndAnExample() throws {
        let files = Set(try Repository.schemaFiles(under: "commands"))
        let document = try Repository.text(of: Repository.protocolDocument)
        let headings = document.split(separator: "\n").filter { $0.hasPrefix("#") }
        for command in ServiceCatalog.commands.commands.map(\.name) {
            for schema in [CommandSchema.args(command), CommandSchema.result(command)] where !files.contains(schema) {
                Issue.record("schemas/\(schema) is missing")
            }
            if !headings.contains(where: { $0.contains("`\(command)`") }) {
                Issue.record("docs/protocol.md has no section for \(command): a heading such as ### `\(command)`")
            }
        }
        // Each command is shown working: a request example with the answer it gets right after it.
        let (examples, _) = DocExample.parse(document)
        let answered = Set(ExampleExchange.group(examples).exchanges.filter { $0.answer != nil && $0.request.kind == .request }
            .compactMap(\.request.command))
        for command in ServiceCatalog.commands.commands.map(\.name) where !answered.contains(command) {
            Issue.record("docs/protocol.md has no request example for \(command) followed by the result or reply it gets")
        }
        let catalog = Set(ServiceCatalog.commands.commands.map(\.name))
        for file in files.sorted() {
            let name = String(file.dropFirst("commands/".count))
            guard let command = CommandSchema.command(ofFile: name) else {
                Issue.record("schemas/\(file) is not named <command>.args.json or <command>.result.json")
                continue
            }
            if !catalog.contains(command) {
                Issue.record("schemas/\(file) is for \(command), which is not in CommandCatalog")
            }
        }
    }

    /// Section 5.3's table is the catalog: the same commands, each with the kind and access its
    /// service registered it with.
    @Test func theDocumentsCatalogTableIsTheCatalog() throws {
        let document = try Repository.text(of: Repository.protocolDocument)
        let lines = document.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(of: "<!-- command-catalog -->") else {
            Issue.record("docs/protocol.md has no <!-- command-catalog --> table")
            return
        }
        var documented: [String: String] = [:]
        for line in lines[(start + 1)...].prefix(while: { $0.hasPrefix("|") }).dropFirst(2) {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 3 else {
                Issue.record("catalog table row \(line) does not have three cells")
                continue
            }
            documented[cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))] = "\(cells[1]) | \(cells[2])"
        }
        var registered: [String: String] = [:]
        for command in ServiceCatalog.commands.commands {
            let access: String =
                switch command.access {
                case .open: "open"
                case .user: "user"
                case .role(let role): "role `\(role)`"
                }
            registered[command.name] = "\(command.kind.rawValue) | \(access)"
        }
        guard documented != registered else { return }
        let differences = registered.keys.sorted().filter { documented[$0] != registered[$0] }.map {
            "\($0): the table says \(documented[$0] ?? "nothing"), the catalog \(registered[$0]!)"
        } + documented.keys.sorted().filter { registered[$0] == nil }.map { "\($0): in the table, but no service registers it" }
        let table = registered.keys.sorted().map { "| `\($0)` | \(registered[$0]!) |" }.joined(separator: "\n")
        Issue.record("""
            docs/protocol.md's catalog table (section 5.3) differs from the catalog:
            \(differences.joined(separator: "\n"))
            The table as the catalog has it:
            | command | kind | who may call it |
            |---|---|---|
            \(table)
            """)
    }

    @Test func theDocumentListsEveryErrorCode() throws {
        let document = try Repository.text(of: Repository.protocolDocument)
        for code in ErrorCode.allCases {
            if !document.contains("| `\(code.rawValue)` |") {
                Issue.record("docs/protocol.md has no row for `\(code.rawValue)` in its table of error codes")
            }
        }
    }

    // MARK: 3. Examples validate against their schemas

    @Test func everyDocumentedExampleValidatesAgainstItsSchemas() async throws {
        let (examples, problems) = DocExample.parse(try Repository.text(of: Repository.protocolDocument))
        for problem in problems { Issue.record(Comment(rawValue: problem)) }
        #expect(examples.count >= 10, "docs/protocol.md should carry examples")
        let catalog = Set(ServiceCatalog.commands.commands.map(\.name))
        let files = Set(try Repository.schemaFiles())

        var items: [SchemaValidator.Item] = []
        // Bad requests must be refused by a schema: the indexes of their items, per example.
        var mustBeRefused: [(example: DocExample, items: Range<Int>)] = []

        for example in examples {
            let label = example.description
            switch example.kind {
            case .request:
                let command = example.command ?? ""
                guard catalog.contains(command) else {
                    Issue.record("\(label): \(command) is not in CommandCatalog; show it as a bad-request")
                    continue
                }
                guard let envelope = example.json, case .object = envelope else {
                    Issue.record("\(label): not a JSON object")
                    continue
                }
                #expect(envelope["command"]?.stringValue == command, "\(label): the envelope's command differs from the marker's")
                items.append(.text(example.text, schema: "envelope.json", label: "\(label) as an envelope"))
                items.append(.instance(Self.args(of: envelope), schema: CommandSchema.args(command), label: "\(label) args"))
            case .badRequest:
                guard let envelope = example.json, case .object = envelope,
                    let command = envelope["command"]?.stringValue, catalog.contains(command)
                else { continue }  // not JSON, not an object, or not a command of the contract: outside it already
                guard files.contains(CommandSchema.args(command)) else {
                    Issue.record("\(label): cannot check that schemas refuse it: schemas/\(CommandSchema.args(command)) is missing")
                    continue
                }
                let start = items.count
                items.append(.text(example.text, schema: "envelope.json", label: "\(label) as an envelope"))
                if case .object? = Self.optionalArgs(of: envelope) ?? .object([:]) {
                    items.append(.instance(Self.args(of: envelope), schema: CommandSchema.args(command), label: "\(label) args"))
                }
                mustBeRefused.append((example, start..<items.count))
            case .result:
                let command = example.command ?? ""
                guard catalog.contains(command) else {
                    Issue.record("\(label): \(command) is not in CommandCatalog")
                    continue
                }
                items.append(.text(example.text, schema: CommandSchema.result(command), label: label))
            case .reply, .error:
                items.append(.text(example.text, schema: "reply.json", label: label))
                if example.kind == .error {
                    #expect(example.json?["ok"] == false, "\(label): an error example is a reply with \"ok\": false")
                }
            case .envelope:
                items.append(.text(example.text, schema: "envelope.json", label: label))
            }
        }

        let output = try await SchemaValidator.run(items: items)
        var refusedOnly = Set<Int>()
        for (example, range) in mustBeRefused {
            refusedOnly.formUnion(range)
            if range.allSatisfy({ output.results[$0].errors.isEmpty }) {
                Issue.record("\(example): shown as a bad-request, but envelope.json and its args schema both accept it")
            }
        }
        for (index, result) in output.results.enumerated() where !refusedOnly.contains(index) {
            for error in result.errors { Issue.record("\(result.label): \(error)") }
        }
    }

    // MARK: 4. Examples are what the running system says

    @Test func documentedRequestsGetTheDocumentedRepliesFromARealStack() async throws {
        let (examples, _) = DocExample.parse(try Repository.text(of: Repository.protocolDocument))
        let exchanges = ExampleExchange.group(examples).exchanges
        #expect(!exchanges.isEmpty, "docs/protocol.md has no request examples")
        guard FileManager.default.isExecutableFile(atPath: TallyStack.executable.path) else {
            Issue.record("""
                found no tally executable beside the test bundle (TallyStack.executable: \(TallyStack.executable.path)) \
                to run a stack; build everything first (swift build --build-tests), or set TALLY_EXECUTABLE. \
                The tally executable does not build while Sources/TallyCalc is a placeholder.
                """)
            return
        }
        let catalog = Set(ServiceCatalog.commands.commands.map(\.name))

        // One worker of every service, so every documented command is answered.
        let workers = Dictionary(uniqueKeysWithValues: ServiceCatalog.commands.workerServices.map { ($0, 1) })
        // Generous deadlines: the examples include logins, which hash passwords (slow on purpose,
        // and slower on a loaded machine); no example's reply depends on the deadline.
        var options = TallyStack.Options(workers: workers)
        options.gatewayArguments = ["--default-deadline-ms", "30000"]
        let items: [SchemaValidator.Item] = try await TallyStack.with(options) { stack in
            let client = try stack.client(timeout: TallyStack.identityTimeout)
            // A currency worker answers at once but serves its data only once it has loaded it.
            try await stack.waitUntil("the currency data is loaded") {
                (try? await client.call("currency.status"))?.result?["state"] == "ready"
            }
            // The identity examples start from one admin, made as an operator makes the first.
            try await stack.addUser("olga", password: "orange tulip harbor lantern", roles: ["admin"])
            var live = LiveValues(serviceAccessToken: try stack.serviceAccessToken())
            var items: [SchemaValidator.Item] = []
            // In document order: people sign up and log in where they first appear, and later
            // requests carry their tokens.
            for exchange in exchanges {
                let request = exchange.request
                let label = "live reply to \(request)"
                let (text, missing) = live.fill(request.text)
                for placeholder in missing {
                    Issue.record("\(request): no earlier example's reply gave \(placeholder)")
                }
                let frames = try await client.send(Data(text.utf8))
                guard frames.count == 1, let text = String(data: frames[0], encoding: .utf8) else {
                    Issue.record("\(label): \(frames.count) frames, or not UTF-8")
                    continue
                }
                items.append(.text(text, schema: "reply.json", label: label, wireOrder: true))
                guard let reply = try? JSONReader.parse(frames[0]) else {
                    continue  // validate.py reports it
                }
                let command = request.json?["command"]?.stringValue
                if reply["ok"] == true, let command, catalog.contains(command), let result = reply["result"] {
                    items.append(.instance(result, schema: CommandSchema.result(command), label: "\(label): result"))
                    live.learn(from: result, documented: exchange.answer?.kind == .result ? exchange.answer?.json : nil)
                }
                if request.kind == .request {
                    #expect(reply["id"] == request.json?["id"].flatMap { $0 == .null ? nil : $0 }, "\(label): the reply echoes the request's id")
                }
                compare(exchange, live: reply, command: command)
            }
            // Every event those requests recorded, against the schema of its type.
            for feed in ServiceCatalog.commands.commands.map(\.name) where feed.hasSuffix(".events") {
                var after: Int64 = 0
                while true {
                    let page = try await client.call(feed, ["after": .integer(after), "limit": 1000], token: live.serviceAccessToken)
                    let events = try #require(page.result?["events"]?.arrayValue, "\(feed): \(page)")
                    for event in events {
                        let type = event["type"]?.stringValue ?? "?"
                        let schema = "events/\(type).json"
                        if FileManager.default.fileExists(atPath: Repository.schemas.appendingPathComponent(schema).path) {
                            items.append(.instance(event, schema: schema, label: "live event \(type) #\(event["sequence"]?.intValue ?? 0)"))
                        } else {
                            Issue.record("the live event type \(type) has no schema at schemas/\(schema)")
                        }
                        after = event["sequence"]?.intValue ?? after
                    }
                    if events.isEmpty { break }
                }
            }
            return items
        }
        let output = try await SchemaValidator.run(items: items)
        for result in output.results {
            for error in result.errors { Issue.record("\(result.label): \(error)") }
        }
    }

    // MARK: Helpers

    /// Checks the examples that follow a request against the reply it really got.
    func compare(_ exchange: ExampleExchange, live reply: JSONValue, command: String?) {
        if let answer = exchange.answer {
            guard let documented = answer.json else {
                Issue.record("\(answer): not JSON")
                return
            }
            switch answer.kind {
            case .result:
                guard answer.command == command else {
                    Issue.record("\(answer): a result of \(answer.command ?? "?") after a request for \(command ?? "?")")
                    return
                }
                guard reply["ok"] == true, let result = reply["result"] else {
                    Issue.record("\(answer): documented as a result, but \(exchange.request) gets \(reply.compactText)")
                    return
                }
                let expected = VaryingFields.removing(from: documented, command: command)
                let actual = VaryingFields.removing(from: result, command: command)
                if expected != actual {
                    Issue.record("\(answer) differs from the live result.\n  documented: \(expected.compactText)\n  live:       \(actual.compactText)")
                }
            case .reply, .error:
                let expected = VaryingFields.removing(fromReply: documented, command: command)
                let actual = VaryingFields.removing(fromReply: reply, command: command)
                if expected != actual {
                    Issue.record("\(answer) differs from the live reply.\n  documented: \(expected.compactText)\n  live:       \(actual.compactText)")
                }
            case .request, .badRequest, .envelope:
                break
            }
        }
    }

    private func schemaObject(_ path: String) throws -> JSONValue {
        try JSONReader.parse(Data(contentsOf: Repository.schemas.appendingPathComponent(path)))
    }

    /// The envelope's `args`, nil when absent or null.
    static func optionalArgs(of envelope: JSONValue) -> JSONValue? {
        guard let args = envelope["args"], args != .null else { return nil }
        return args
    }

    /// The envelope's `args` as a command sees them: absent or null is `{}`.
    static func args(of envelope: JSONValue) -> JSONValue {
        optionalArgs(of: envelope) ?? .object([:])
    }
}
