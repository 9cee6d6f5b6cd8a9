import Foundation
import FuzzSupport
import TallyProtocol

/// A message from the gateway as a worker reads it (7/MDP, broker side), its frames drawn from
/// the input by `FuzzFrames`. A message it accepts has frames that read back as itself.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBrokerFrames(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    Fuzz.onSocketThread(start, count) { input in
        let frames = FuzzFrames.split(input)
        guard let message = Majordomo.BrokerMessage(frames: frames) else { return }
        Fuzz.require(Majordomo.BrokerMessage(frames: message.frames) == message, "a broker message does not survive its own framing")
    }
}
