import Foundation
import TallyProtocol
import TallyTesting
import Testing

/// Each error code the gateway and the worker runtime produce, through real processes.
@Suite struct ErrorCodeTests {
    /// Sends raw envelope text as a plain (REQ) client and decodes the reply.
    private func send(_ text: String, to stack: TallyStack) async throws -> Reply {
        let frames = try await stack.client().send(Data(text.utf8))
        return try Reply.decode(try #require(frames.first))
    }

    @Test func invalidArgumentNamesWhatIsWrong() async throws {
        try await TallyStack.with(workers: ["calc": 1]) { stack in
            let cases: [(body: String, field: String?, mentions: String)] = [
                ("not json", nil, "not valid JSON"),
                ("[1,2]", nil, "JSON object"),
                (#"{"args": {}}"#, "command", "command is required"),
                (#"{"command": "calc"}"#, "command", "<service>.<name>"),
                (#"{"command": "Calc.Tip"}"#, "command", "<service>.<name>"),
                (#"{"command": "calc.tip", "args": [1]}"#, "args", "object"),
                (#"{"command": "calc.tip", "arg": {}}"#, "arg", "unknown envelope field"),
                (#"{"command": "calc.tip", "deadline_ms": 0}"#, "deadline_ms", "deadline_ms"),
                (#"{"command": "calc.tip", "id": 7}"#, "id", "string"),
                (#"{"id": "e-1", "command": "calc.tip", "args": {"amount": "-5", "tip_percent": "10", "currency": "USD"}}"#, "args.amount", ""),
                (#"{"command": "calc.tip", "args": {"amount": "5.00", "tip_percent": "51", "currency": "USD"}}"#, "args.tip_percent", ""),
                (#"{"command": "calc.tip", "args": {"amount": "5.00", "tip_percent": "10", "split": 51, "currency": "USD"}}"#, "args.split", ""),
                (#"{"command": "calc.tip", "args": {"amount": "5.001", "tip_percent": "10", "currency": "USD"}}"#, "args.amount", ""),
                (#"{"command": "calc.tip", "args": {"amount": "5.00", "tip_percent": "10", "currency": "XYZ"}}"#, "args.currency", ""),
                (#"{"command": "calc.tip", "args": {"amount": 5.5, "tip_percent": "10", "currency": "USD"}}"#, "args.amount", "decimal string"),
            ]
            for item in cases {
                let reply = try await send(item.body, to: stack)
                let error = try #require(reply.error, "expected an error for \(item.body)")
                #expect(error.code == .invalidArgument, "\(item.body) → \(error)")
                #expect(error.field == item.field, "\(item.body) → \(error)")
                #expect(item.mentions.isEmpty || error.message.contains(item.mentions), "\(item.body) → \(error.message)")
            }
            let echoed = try await send(#"{"id": "e-1", "command": "calc.tip", "args": {}}"#, to: stack)
            #expect(echoed.id == "e-1")
            // An invalid envelope still says which request it answers when its id is readable.
            let invalid = try await send(#"{"id": "e-2", "command": "calc"}"#, to: stack)
            #expect(invalid.id == "e-2")
            #expect(invalid.error?.field == "command")
        }
    }

    @Test func unknownServiceOrCommandIsUnimplemented() async throws {
        try await TallyStack.with(workers: ["calc": 1]) { stack in
            let client = try stack.client()
            let service = try await client.call("nosuch.thing")
            #expect(service.error?.code == .unimplemented)
            #expect(service.error?.field == "command")
            let command = try await client.call("calc.nosuch")
            #expect(command.error?.code == .unimplemented)
            #expect(command.error?.message.contains("calc.tip") == true, "lists what calc serves")
            let system = try await client.call("system.nosuch")
            #expect(system.error?.code == .unimplemented)
        }
    }

    @Test func oversizedRequestIsResourceExhausted() async throws {
        try await TallyStack.with(workers: ["calc": 1]) { stack in
            let padding = String(repeating: "x", count: 300 * 1024)
            let reply = try await send(#"{"command": "calc.tip", "id": "big", "args": {"note": "\#(padding)"}}"#, to: stack)
            #expect(reply.error?.code == .resourceExhausted)
            #expect(reply.error?.message.contains("262144") == true)
        }
    }

    @Test func aFullQueueIsResourceExhaustedAtOnce() async throws {
        var options = TallyStack.Options()
        options.gatewayArguments = ["--max-queue-depth", "2"]
        try await TallyStack.with(options) { stack in
            // The two queued requests wait as long as the test may take; a worker answers them at the end.
            let client = try stack.client(timeout: .seconds(90))
            let bill: JSONValue = ["amount": "84.00", "tip_percent": "18", "split": 3, "currency": "USD"]
            async let first = client.call("calc.tip", bill)
            async let second = client.call("calc.tip", bill)
            try await stack.waitUntil("two requests wait for a calc worker") {
                (try? await stack.serviceStatus("calc"))?["queued"]?.intValue == 2
            }
            let refused = try await client.call("calc.tip", bill)
            #expect(refused.error?.code == .resourceExhausted, "\(refused)")
            #expect(refused.error?.message.contains("2 calc requests are already waiting") == true, "\(refused)")
            try stack.startWorker("calc")
            #expect(try await first.result?["tip"] == "15.12")
            #expect(try await second.result?["tip"] == "15.12")
        }
    }

    @Test func noLiveWorkerBeforeTheDeadlineIsUnavailable() async throws {
        try await TallyStack.with() { stack in
            let reply = try await stack.client(timeout: .seconds(2)).call(
                "calc.tip", ["amount": "1"], id: "u-1", deadline: .milliseconds(300))
            #expect(reply.id == "u-1")
            #expect(reply.error?.code == .unavailable)
            #expect(reply.error?.message.contains("no calc worker") == true)
        }
    }

    @Test func aWorkerThatNeverAnswersIsDeadlineExceeded() async throws {
        try await TallyStack.with() { stack in
            let worker = try await stack.rawWorker("sleepy", .swallow)
            let reply = try await stack.client(timeout: .seconds(3)).call("sleepy.work", deadline: .milliseconds(300))
            #expect(reply.error?.code == .deadlineExceeded)
            #expect(worker.received.count == 1)
            try await worker.stop()
        }
    }
}
