import Foundation
import FuzzSupport
import TallyProtocol

/// A reply frame as a client (`tally call`, `TallyClient`, the notifier's catch-up) reads it. A
/// reply it accepts survives its own encoding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzReply(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    Fuzz.onSocketThread(start, count) { input in
        guard let reply = try? Reply.decode(input) else { return }
        let encoded = try? TallyJSON.encode(reply)
        let again = encoded.flatMap { try? Reply.decode($0) }
        Fuzz.require(
            again?.id == reply.id && again?.result == reply.result && again?.error == reply.error,
            "a reply does not survive its own encoding")
    }
}
