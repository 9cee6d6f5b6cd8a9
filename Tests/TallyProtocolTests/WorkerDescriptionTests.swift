import Foundation
import Testing

@testable import TallyProtocol

@Suite struct WorkerDescriptionTests {
    private func decode(_ text: String, service: String = "ledger") -> Result<WorkerDescription, TallyError> {
        Result { () throws(TallyError) in try WorkerDescription.decode(Data(text.utf8), service: service) }
    }

    @Test func aDescriptionOfTheServicesOwnCommandsIsRead() throws {
        let description = try decode(#"""
            {"commands": [{"name": "ledger.post", "kind": "change", "access": "role", "role": "clerk", "summary": "Posts.",
              "args_schema": {"type": "object"}}, {"name": "ledger.get", "kind": "query", "access": "user", "summary": "Gets."}]}
            """#).get()
        #expect(description.commands.map(\.name) == ["ledger.post", "ledger.get"])
        #expect(description.commands[0].argsSchema == ["type": "object"] && description.commands[0].accessDescription == "role clerk")
        #expect(description.commands[1].resultSchema == nil && description.commands[1].accessDescription == "a signed-in user")
    }

    @Test func wrongDescriptionsAreRefusedSayingWhy() {
        let wrong: [(String, String)] = [
            ("[]", "is not {\"commands\": [...]}"),
            (#"{"commands": [{"name": "ledger.post", "kind": "sometimes", "access": "open", "summary": ""}]}"#, "is not {\"commands\""),
            (#"{"commands": [{"name": "calc.tip", "kind": "query", "access": "open", "summary": ""}]}"#, "not a command of ledger"),
            (#"{"commands": [{"name": "ledger", "kind": "query", "access": "open", "summary": ""}]}"#, "not a command of ledger"),
            (#"{"commands": [{"name": "ledger.a", "kind": "query", "access": "open", "summary": ""}, {"name": "ledger.a", "kind": "query", "access": "open", "summary": ""}]}"#, "twice"),
            (#"{"commands": [{"name": "ledger.a", "kind": "query", "access": "role", "summary": ""}]}"#, "role with a role"),
            (#"{"commands": [{"name": "ledger.a", "kind": "query", "access": "open", "role": "x", "summary": ""}]}"#, "role with a role"),
        ]
        for (text, reason) in wrong {
            guard case .failure(let error) = decode(text) else {
                Issue.record("accepted \(text)")
                continue
            }
            #expect(error.message.contains(reason), "\(text): \(error.message)")
        }
    }
}
