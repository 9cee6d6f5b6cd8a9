import Foundation
import TallyProtocol
import TallyTesting
import Testing

/// 7/MDP and 8/MMI as any Majordomo peer speaks them, frames written by hand.
@Suite struct MajordomoInteropTests {
    @Test func aRawMajordomoClientCallsCalc() async throws {
        try await TallyStack.with(workers: ["calc": 1]) { stack in
            let envelope = #"{"id":"m-1","command":"calc.tip","args":{"amount":"84.00","tip_percent":"18","split":3,"currency":"USD"}}"#
            // A DEALER speaks for a REQ: empty delimiter, "MDPC01", service, body.
            let frames = try #require(try await RawPeer.exchange(
                [Data(), Data("MDPC01".utf8), Data("calc".utf8), Data(envelope.utf8)],
                endpoint: stack.frontend, context: stack.context))
            #expect(frames.count == 4)
            #expect(Array(frames.prefix(3)) == [Data(), Data("MDPC01".utf8), Data("calc".utf8)])
            let reply = try Reply.decode(frames[3])
            #expect(reply.id == "m-1")
            #expect(reply.result?["total"] == "99.12")
        }
    }

    @Test func mmiServiceAnswers200OnlyWhileAWorkerLives() async throws {
        try await TallyStack.with(workers: ["calc": 1]) { stack in
            func mmi(_ service: String, _ name: String = "mmi.service") async throws -> String? {
                let frames = try await RawPeer.exchange(
                    [Data(), Data("MDPC01".utf8), Data(name.utf8), Data(service.utf8)],
                    endpoint: stack.frontend, context: stack.context)
                return frames.map { String(decoding: $0[3], as: UTF8.self) }
            }
            #expect(try await mmi("calc") == "200")
            #expect(try await mmi("shopping") == "404")
            #expect(try await mmi("calc", "mmi.other") == "501")
            let json = try await stack.client().call("mmi.service", ["service": "calc"])
            #expect(json.result == ["service": "calc", "code": "200"])
            // A JSON envelope over 7/MDP may name the whole MMI command in the service frame.
            let framed = try await RawPeer.exchange(
                [Data(), Data("MDPC01".utf8), Data("mmi.service".utf8), Data(#"{"command":"mmi.service","args":{"service":"calc"}}"#.utf8)],
                endpoint: stack.frontend, context: stack.context)
            #expect(try Reply.decode(try #require(framed?.last)).result?["code"] == "200")
        }
    }

    /// The gateway never reads a reply: a worker says whether it is an error in Tally's outcome
    /// frame, and one that does not (a plain 7/MDP worker) has its replies counted as answered.
    @Test func errorsAreCountedByTheOutcomeAWorkerReportsNotByTheBody() async throws {
        try await TallyStack.with() { stack in
            let notFound = Data(#"{ "ok" : false, "error" : {"code": "not_found", "message": "no such thing"} }"#.utf8)
            let plain = try await stack.rawWorker("plain", .reply({ _ in notFound }))
            let reply = try await stack.client().call("plain.find")
            #expect(reply.error?.code == .notFound, "forwarded as the worker wrote it")
            #expect(try await stack.serviceStatus("plain")?["errors"]?.intValue == 0)
            try await plain.stop()

            let reporting = try await stack.rawWorker("reporting", .replyWithOutcome({ _ in ("not_found", notFound) }))
            #expect(try await stack.client().call("reporting.find").error?.code == .notFound)
            #expect(try await stack.serviceStatus("reporting")?["errors"]?.intValue == 1)
            try await reporting.stop()
        }
    }

    @Test func aRawMajordomoWorkerServesANewService() async throws {
        try await TallyStack.with() { stack in
            let echo = try await stack.rawWorker("echo", .reply({ body in
                let text = (try? JSONReader.parse(body))?["args"]?["text"]?.stringValue ?? ""
                return Data(#"{"ok":true,"result":{"echo":"\#(text)"}}"#.utf8)
            }))
            let reply = try await stack.client().call("echo.say", ["text": "hallo"])
            #expect(reply.result == ["echo": "hallo"])
            let mmi = try await stack.client().call("mmi.service", ["service": "echo"])
            #expect(mmi.result?["code"] == "200")
            try await echo.stop()
            try await stack.waitUntil("echo has no worker") {
                (try? await stack.client().call("mmi.service", ["service": "echo"]))?.result?["code"] == "404"
            }
        }
    }
}
