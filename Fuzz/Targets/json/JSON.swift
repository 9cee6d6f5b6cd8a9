import Foundation
import FuzzSupport
import TallyProtocol

/// Any JSON text as `JSONValue` reads it (the args of every request, the data of every event). A
/// value it accepts survives its own encoding exactly: integers stay integers, strings stay strings.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    Fuzz.onSocketThread(start, count) { input in
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: input) else { return }
        let encoded = try? JSONEncoder.tally.encode(value)
        let again = encoded.flatMap { try? JSONDecoder().decode(JSONValue.self, from: $0) }
        Fuzz.require(again == value, "a JSON value does not survive its own encoding: \(value)")
    }
}
