import Foundation
import Testing

@testable import TallyProtocol

@Suite struct EnvelopeTests {
    private func decode(_ text: String) -> Result<Envelope, TallyError> {
        Result { () throws(TallyError) in try Envelope.decode(Data(text.utf8)) }
    }

    @Test func decodesEveryField() throws {
        let envelope = try decode(
            #"{"id":"c-1","command":"calc.tip","args":{"amount":"84.00","split":3},"deadline_ms":1500,"idempotency_key":"k","token":"t","locale":"en_US"}"#
        ).get()
        #expect(envelope.id == "c-1")
        #expect(envelope.command == "calc.tip")
        #expect(envelope.service == "calc")
        #expect(envelope.args == ["amount": "84.00", "split": 3])
        #expect(envelope.deadlineMs == 1500)
        #expect(envelope.idempotencyKey == "k")
        #expect(envelope.token == "t")
        #expect(envelope.locale == "en_US")
    }

    @Test func argsDefaultToAnEmptyObject() throws {
        #expect(try decode(#"{"command":"system.ping"}"#).get().args == .object([:]))
        #expect(try decode(#"{"command":"system.ping","args":null}"#).get().args == .object([:]))
    }

    @Test(arguments: [
        ("", nil as String?),
        ("{", nil),
        ("[]", nil),
        ("\"text\"", nil),
        (#"{"args":{}}"#, "command"),
        (#"{"command":7}"#, "command"),
        (#"{"command":"calc"}"#, "command"),
        (#"{"command":".tip"}"#, "command"),
        (#"{"command":"calc."}"#, "command"),
        (#"{"command":"Calc.tip"}"#, "command"),
        (#"{"command":"calc.tip","args":"x"}"#, "args"),
        (#"{"command":"calc.tip","deadline_ms":0}"#, "deadline_ms"),
        (#"{"command":"calc.tip","deadline_ms":600001}"#, "deadline_ms"),
        (#"{"command":"calc.tip","deadline_ms":1.5}"#, "deadline_ms"),
        (#"{"command":"calc.tip","id":""}"#, "id"),
        (#"{"command":"calc.tip","id":12}"#, "id"),
        (#"{"command":"calc.tip","locale":false}"#, "locale"),
        (#"{"command":"calc.tip","extra":1}"#, "extra"),
    ])
    func rejectsMalformedEnvelopes(text: String, field: String?) {
        guard case .failure(let error) = decode(text) else {
            Issue.record("accepted \(text)")
            return
        }
        #expect(error.code == .invalidArgument)
        #expect(error.field == field, "\(text): \(error)")
        #expect(!error.message.isEmpty)
    }

    @Test func aLongIdIsRefused() {
        let id = String(repeating: "x", count: 257)
        guard case .failure(let error) = decode(#"{"command":"calc.tip","id":"\#(id)"}"#) else {
            Issue.record("accepted a 257-byte id")
            return
        }
        #expect(error.field == "id")
    }

    /// The gateway routes on `EnvelopeHead` and the worker runs on `Envelope`: they must accept
    /// and refuse exactly the same requests, or a request could pass one and fail the other.
    @Test func headAndEnvelopeAgree() {
        let samples = [
            #"{"command":"calc.tip"}"#, #"{"command":"calc.tip","args":[1]}"#, #"{"command":"calc.tip","args":{"a":[1,{"b":null}]}}"#,
            #"{"command":"x.y","deadline_ms":5}"#, #"{"command":"x.y","nope":1}"#, "nonsense", #"{"command":"calc.tip","args":7}"#,
            #"{"id":"1","command":"mmi.service","args":{"service":"calc"}}"#,
        ]
        for sample in samples {
            let full = Result { () throws(TallyError) in try Envelope.decode(Data(sample.utf8)) }
            let head = Result { () throws(TallyError) in try EnvelopeHead.decode(Data(sample.utf8)) }
            switch (full, head) {
            case (.success(let envelope), .success(let head)):
                #expect(envelope.command == head.command && envelope.id == head.id, "\(sample)")
            case (.failure(let a), .failure(let b)):
                #expect(a.code == b.code && a.field == b.field, "\(sample): \(a) vs \(b)")
            default:
                Issue.record("Envelope and EnvelopeHead disagree on \(sample)")
            }
        }
    }

    /// Found by the envelope fuzz target before the gateway read `args` with `JSONReader`: text
    /// inside `args` that is not JSON (a bad escape, a lone surrogate, bytes that are not UTF-8, a
    /// number beyond a double) passed the gateway and only the worker refused it. Both refuse it
    /// now, with the same error; such a request is not JSON, so its reply names no request.
    @Test func textInsideArgsThatIsNotJSONIsRefusedByBoth() {
        let samples: [Data] = [
            Data(#"{"id":"a-1","command":"calc.tip","args":{"note":"\x"}}"#.utf8),
            Data(#"{"id":"a-1","command":"calc.tip","args":{"note":"\ud800"}}"#.utf8),
            Data(#"{"id":"a-1","command":"calc.tip","args":{"amount":1e999}}"#.utf8),
            Data(#"{"id":"a-1","command":"calc.tip","args":{"note":""#.utf8) + Data([0xFF, 0xFE]) + Data(#""}}"#.utf8),
        ]
        let notJSON = TallyError.invalidArgument("the request is not valid JSON (UTF-8 text with one JSON object)")
        for sample in samples {
            #expect(throws: notJSON, "\(sample)") { try EnvelopeHead.decode(sample) }
            #expect(throws: notJSON, "\(sample)") { try Envelope.decode(sample) }
            #expect(EnvelopeHead.recoverID(from: sample) == nil)
        }
    }

    /// Found by fuzzing (`envelope`): the gateway refused `args` that are not an object with
    /// "args must be a JSON object", the worker with "..., not a string". Both say what was sent now.
    @Test func argsThatAreNotAnObjectAreRefusedByBothInTheSameWords() {
        for (args, what) in [(#""sho""#, "a string"), ("[1]", "an array"), ("7", "a number"), ("true", "a boolean")] {
            let sample = Data(#"{"args":\#(args),"command":"s.n4"}"#.utf8)
            let refusal = TallyError.invalidArgument("args must be a JSON object, not \(what)", field: "args")
            #expect(throws: refusal, "\(args)") { try EnvelopeHead.decode(sample) }
            #expect(throws: refusal, "\(args)") { try Envelope.decode(sample) }
        }
    }

    @Test func theIdOfAnInvalidEnvelopeIsRecovered() {
        #expect(EnvelopeHead.recoverID(from: Data(#"{"id":"e-1","command":"calc"}"#.utf8)) == "e-1")
        #expect(EnvelopeHead.recoverID(from: Data(#"{"arg":{},"id":"e-2","command":"calc.tip"}"#.utf8)) == "e-2")
        #expect(EnvelopeHead.recoverID(from: Data(#"{"id":7,"command":"calc"}"#.utf8)) == nil)
        #expect(EnvelopeHead.recoverID(from: Data("not json".utf8)) == nil)
    }

    @Test func encodesAndDecodesBack() throws {
        let envelope = Envelope(id: "r", command: "calc.split", args: ["people": 2], deadlineMs: 10, locale: "ja_JP")
        let decoded = try Envelope.decode(envelope.encoded())
        #expect(decoded.id == "r" && decoded.command == "calc.split" && decoded.args == ["people": 2])
        #expect(decoded.deadlineMs == 10 && decoded.locale == "ja_JP")
    }
}
