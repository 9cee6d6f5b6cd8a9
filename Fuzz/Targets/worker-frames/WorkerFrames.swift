import Foundation
import FuzzSupport
import TallyProtocol

/// A message from a worker as the gateway's broker reads it (7/MDP, worker side), its frames
/// drawn from the input by `FuzzFrames`. A message it accepts has frames that read back as itself.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWorkerFrames(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    Fuzz.onSocketThread(start, count) { input in
        let frames = FuzzFrames.split(input)
        guard let message = Majordomo.WorkerMessage(frames: frames[...]) else { return }
        Fuzz.require(
            Majordomo.WorkerMessage(frames: message.frames[...]) == message, "a worker message does not survive its own framing")
    }
}
