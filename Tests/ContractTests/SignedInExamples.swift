import Foundation
import TallyCatalog
import TallyProtocol
import TallyTesting
import Testing

/// The documented requests that a signed-in person sends (`<!-- example: request ... as NAME -->`),
/// run in document order against their services in-process, each with the caller the
/// authentication middleware will set (`NAME`, user id `u-NAME`): every answer must equal the
/// documented one but for the fields that vary, every result and every event the requests
/// record must validate against its schema.
///
/// This stands in for the live run (`documentedRequestsGetTheDocumentedRepliesFromARealStack`)
/// until the stack can sign people in; then those examples are sent live with real tokens.
extension ContractTests {
    /// Values a documented result shows that the service makes up afresh each time (an invite
    /// code): what it really gave is sent where later requests show the documented one.
    static let carriedForward: Set<String> = ["code"]

    @Test func signedInExamplesGetTheDocumentedReplies() async throws {
        let (examples, _) = DocExample.parse(try Repository.text(of: Repository.protocolDocument))
        let exchanges = ExampleExchange.group(examples).exchanges.filter { $0.request.caller != nil }
        let directory = TemporaryDirectory(prefix: "tally-contract")
        var services: [String: ServiceHarness] = [:]
        var substitutions: [String: JSONValue] = [:]
        var items: [SchemaValidator.Item] = []

        for exchange in exchanges {
            let request = exchange.request
            guard let caller = request.caller, let envelope = request.json, let command = envelope["command"]?.stringValue else {
                Issue.record("\(request): not an envelope with a command")
                continue
            }
            let service = String(Envelope.service(of: command))
            if services[service] == nil {
                services[service] = try ServiceCatalog.handler(named: service, dataDirectory: directory.path).map(ServiceHarness.init)
            }
            guard let harness = services[service] else {
                Issue.record("\(request): no service \(service) in ServiceCatalog")
                continue
            }
            let args = Self.substituting(substitutions, in: Self.args(of: envelope))
            var reply: [String: JSONValue] = [:]
            if let id = envelope["id"], id != .null { reply["id"] = id }
            do {
                let result = try harness.call(
                    command, args, locale: envelope["locale"]?.stringValue, idempotencyKey: envelope["idempotency_key"]?.stringValue,
                    caller: Caller(userID: "u-\(caller)", username: caller))
                reply["ok"] = true
                reply["result"] = result
                items.append(.instance(result, schema: CommandSchema.result(command), label: "in-process result of \(request)"))
                if let documented = exchange.answer?.json, exchange.answer?.kind == .result {
                    Self.learn(from: documented, live: result, into: &substitutions)
                }
            } catch let error as TallyError {
                reply["ok"] = false
                reply["error"] = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder.tally.encode(error))
            }
            compare(exchange, live: .object(reply), command: command)
        }

        // Every event those requests recorded, against the schema of its type.
        for (service, harness) in services.sorted(by: { $0.key < $1.key }) {
            let page = try harness.call("\(service).events", ["after": 0, "limit": 1000])
            for event in page["events"]?.arrayValue ?? [] {
                let type = event["type"]?.stringValue ?? "?"
                let schema = "events/\(type).json"
                guard FileManager.default.fileExists(atPath: Repository.schemas.appendingPathComponent(schema).path) else {
                    Issue.record("the event type \(type) has no schema at schemas/\(schema)")
                    continue
                }
                items.append(.instance(event, schema: schema, label: "in-process event \(type) #\(event["sequence"]?.intValue ?? 0)"))
            }
        }
        #expect(!items.isEmpty || exchanges.isEmpty)
        let output = try await SchemaValidator.run(items: items)
        for result in output.results {
            for error in result.errors { Issue.record("\(result.label): \(error)") }
        }
    }

    /// Records, for each carried-forward key, the documented value and the value really given.
    static func learn(from documented: JSONValue, live: JSONValue, into substitutions: inout [String: JSONValue]) {
        guard case .object(let shown) = documented, case .object(let given) = live else { return }
        for (key, value) in shown {
            if carriedForward.contains(key), case .string(let text) = value, let real = given[key] {
                substitutions[text] = real
            } else if let real = given[key] {
                learn(from: value, live: real, into: &substitutions)
            }
        }
    }

    /// `value` with every string that is a documented made-up value replaced by the real one.
    static func substituting(_ substitutions: [String: JSONValue], in value: JSONValue) -> JSONValue {
        switch value {
        case .string(let text): substitutions[text] ?? value
        case .object(let object): .object(object.mapValues { substituting(substitutions, in: $0) })
        case .array(let array): .array(array.map { substituting(substitutions, in: $0) })
        default: value
        }
    }
}
