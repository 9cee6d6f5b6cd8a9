import Foundation
import TallyProtocol
import TallyTesting
import Testing

/// `system.describe` through a real gateway: Tally's services with the schemas of `schemas/`,
/// another service as its workers describe it in READY, or by its name alone.
@Suite struct SystemDescribeTests {
    static let schemas = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("schemas")

    static func schema(_ path: String) throws -> JSONValue {
        try JSONReader.parse(Data(contentsOf: schemas.appendingPathComponent(path)))
    }

    @Test func aCommandOfTheCatalogComesWithTheSchemasOfTheRepositoryAndWhatTheyReferTo() async throws {
        try await TallyStack.with(workers: ["calc": 1]) { stack in
            let client = try stack.client()
            let reply = try await client.call("system.describe", ["command": "shopping.get_list"])
            let service = try #require(reply.result?["services"]?[0], "\(reply)")
            #expect(service["name"] == "shopping" && service["workers"] == 0 && service["described_by"] == "catalog")
            let command = try #require(service["commands"]?.arrayValue?.first)
            #expect(service["commands"]?.arrayValue?.count == 1)
            #expect(command["kind"] == "query" && command["access"] == "user" && command["role"] == nil)
            #expect(command["args_schema"] == (try Self.schema("commands/shopping.get_list.args.json")))
            #expect(command["result_schema"] == (try Self.schema("commands/shopping.get_list.result.json")))
            // The args refer to shopping.create_list's, which are served beside them.
            let referred = try #require(reply.result?["schemas"]?.objectValue)
            #expect(referred.keys.sorted() == ["https://tally.example/schemas/commands/shopping.create_list.args.json"])
            #expect(referred["https://tally.example/schemas/commands/shopping.create_list.args.json"]
                == (try Self.schema("commands/shopping.create_list.args.json")))
            #expect(referred["https://tally.example/schemas/commands/shopping.get_list.result.json"] == nil)

            let admin = try await client.call("system.describe", ["command": "identity.grant_role"])
            let grant = try #require(admin.result?["services"]?[0]?["commands"]?[0])
            #expect(grant["access"] == "role" && grant["role"] == "admin" && grant["kind"] == "change")

            let all = try await client.call("system.describe")
            let services = try #require(all.result?["services"]?.arrayValue)
            let names = services.compactMap { $0["name"]?.stringValue }
            #expect(names == names.sorted() && Set(["accounts", "calc", "identity", "mmi", "system"]).isSubset(of: Set(names)))
            #expect(services.first { $0["name"] == "calc" }?["workers"] == 1)
            #expect(services.first { $0["name"] == "system" }?["workers"] == nil)
            #expect(services.first { $0["name"] == "system" }?["commands"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
                == ["system.describe", "system.ping", "system.services"])
        }
    }

    @Test func unknownServicesAndCommandsAreNotFound() async throws {
        try await TallyStack.with() { stack in
            let client = try stack.client()
            let service = try await client.call("system.describe", ["service": "ledger"])
            #expect(service.error?.code == .notFound && service.error?.field == "args.service", "\(service)")
            let command = try await client.call("system.describe", ["command": "calc.nosuch"])
            #expect(command.error?.code == .notFound && command.error?.field == "args.command", "\(command)")
            #expect(command.error?.message.contains("calc has calc.adjust, calc.split, calc.tip, calc.tip_table") == true)
            let mismatch = try await client.call("system.describe", ["service": "calc", "command": "accounts.get"])
            #expect(mismatch.error?.code == .invalidArgument && mismatch.error?.field == "args.command", "\(mismatch)")
        }
    }

    @Test func aWorkerOfAnotherServiceDescribesItsCommandsInReady() async throws {
        let description = #"""
            {"commands": [{"name": "ledger.post", "kind": "change", "access": "role", "role": "clerk", "summary": "Posts an entry.",
              "args_schema": {"type": "object", "required": ["amount"]}}]}
            """#
        try await TallyStack.with() { stack in
            let client = try stack.client()
            let ledger = try await stack.rawWorker(
                "ledger", .reply({ _ in Data(#"{"ok":true,"result":{}}"#.utf8) }), readyExtras: [Data("2".utf8), Data(description.utf8)])
            let plain = try await stack.rawWorker("echo", .echo)

            let described = try await client.call("system.describe", ["service": "ledger"])
            let service = try #require(described.result?["services"]?[0], "\(described)")
            #expect(service["described_by"] == "worker" && service["workers"] == 1)
            #expect(service["commands"] == [[
                "name": "ledger.post", "kind": "change", "access": "role", "role": "clerk", "summary": "Posts an entry.",
                "args_schema": ["type": "object", "required": ["amount"]],
            ]])
            // The description rides along with the capacity: the worker takes two at once, and serves.
            #expect(try await client.call("ledger.post", ["amount": "1"]).isOK)

            let echo = try await client.call("system.describe", ["service": "echo"])
            #expect(echo.result?["services"] == [["name": "echo", "workers": 1, "described_by": "none", "commands": []]], "\(echo)")
            let unknown = try await client.call("system.describe", ["command": "echo.say"])
            #expect(unknown.error?.code == .notFound && unknown.error?.message.contains("did not describe") == true, "\(unknown)")
            try await ledger.stop()
            try await plain.stop()
        }
    }

    @Test func aReadyThatDescribesAnotherServicesCommandsIsRefused() async throws {
        try await TallyStack.with() { stack in
            let worker = RawMajordomoWorker(
                service: "ledger", behaviour: .echo,
                readyExtras: [Data(#"{"commands": [{"name": "calc.tip", "kind": "query", "access": "open", "summary": "x"}]}"#.utf8)])
            worker.start(endpoint: stack.backend, context: stack.context)
            try await stack.waitUntil("the gateway refuses the READY and says why") {
                stack.gateway.log.contains("refused a worker: its READY describes its commands wrongly")
                    && stack.gateway.log.contains("names 'calc.tip', which is not a command of ledger")
            }
            #expect(try await stack.serviceStatus("ledger") == nil)
            try await worker.stop()
        }
    }
}
