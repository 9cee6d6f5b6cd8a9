import Foundation
import FuzzSupport
import TallyProtocol

/// A request frame as the worker of its service handles it, for every command of every service in
/// `ServiceCatalog`: the envelope, then the command's argument reader and handler, on real SQLite
/// stores (`LiveServices`), with a caller set on commands that need one, on a thread with the
/// stack of a worker's (`DedicatedThread`). Any `TallyError` is a correct answer; `internal` (the
/// handler threw something else) is not, nor a reply that does not read back. Seeds are the
/// request examples of docs/protocol.md.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCommands(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    Fuzz.onSocketThread(start, count) { input in
        guard let frame = LiveServices.shared.reply(to: input) else { return }
        let reply = try? Reply.decode(frame)
        Fuzz.require(reply != nil, "a worker's reply does not read back: \(String(decoding: frame, as: UTF8.self))")
        if let error = reply?.error {
            Fuzz.require(error.code != .internal, "a command failed with something other than a TallyError: \(error.message)")
        }
    }
}

/// Opens the stores and loads the currency data before the first input, outside its time limit.
@_cdecl("LLVMFuzzerInitialize")
public func initializeCommands(_ argc: UnsafeMutableRawPointer?, _ argv: UnsafeMutableRawPointer?) -> CInt {
    _ = LiveServices.shared
    return 0
}
