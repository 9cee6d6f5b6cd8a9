import Foundation
import FuzzSupport
import TallyProtocol

/// A request frame as the gateway and a worker read it. The gateway reads only the head (to route
/// it, `args` checked without being built), the worker the whole envelope: they accept and refuse
/// exactly the same frames, with the same error (docs/protocol.md, section 3). A refused frame
/// still gets a reply that a client can read, naming the request when its `id` is readable; an
/// accepted one survives its own encoding (regression `args-whole-double-past-2-to-53`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEnvelope(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    Fuzz.onSocketThread(start, count) { input in
        let frame = input
        let head = Result { () throws(TallyError) in try EnvelopeHead.decode(frame) }
        let envelope = Result { () throws(TallyError) in try Envelope.decode(frame) }
        switch (head, envelope) {
        case (.success(let head), .success(let envelope)):
            Fuzz.require(
                head.id == envelope.id && head.command == envelope.command
                    && head.deadlineMs == envelope.deadlineMs && head.idempotencyKey == envelope.idempotencyKey
                    && head.token == envelope.token && head.locale == envelope.locale,
                "the gateway and the worker read different envelopes")
            // Encoded, read and encoded again, it writes the same JSON values. (Not always the same
            // bytes: a whole Double from 2^53 up is written in its shortest form, `8.8833e+18`, which
            // reads back as the integer of those digits and is written as that integer from then on;
            // the `json` target holds that to be the same Double.)
            let encoded = envelope.encoded()
            let again = try? Envelope.decode(encoded)
            let values = try? JSONReader.parse(encoded)
            Fuzz.require(
                values != nil && again.flatMap { try? JSONReader.parse($0.encoded()) } == values,
                "an envelope does not survive its own encoding")
        case (.failure(let headError), .failure(let error)) where headError != error:
            Fuzz.require(false, "the gateway refuses with \(headError), the worker with \(error)")
        case (.failure, .failure(let error)):
            let id = EnvelopeHead.recoverID(from: frame)
            let reply = try? Reply.decode(Reply.failure(id: id, error: error))
            Fuzz.require(reply?.id == id && reply?.error == error, "the error reply to a refused request does not read back")
        case (.success, .failure(let error)):
            Fuzz.require(false, "the gateway routes a request that the worker refuses: \(error)")
        case (.failure(let error), .success):
            Fuzz.require(false, "the gateway refuses a request that the worker accepts: \(error)")
        }
    }
}
