import Foundation
import FuzzSupport
import TallyProtocol

/// Any JSON text, as both of Tally's readers read it: `JSONReader` (every request body, in the
/// gateway and in the worker) and Foundation's decoder into `JSONValue` (replies, events, alerts).
/// `JSONReader` promises to accept exactly what Foundation accepts, as the same value; Foundation's
/// side refuses only what nests deeper than `JSONValue.maximumDepth`. A value either reads
/// survives `TallyJSON`'s encoding exactly: integers stay integers, strings stay strings.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    Fuzz.onSocketThread(start, count) { input in
        let fast = try? JSONReader.parse(input)
        let foundation = try? JSONDecoder().decode(JSONValue.self, from: input)
        if let foundation {
            Fuzz.require(fast == foundation, "JSONReader reads \(String(describing: fast)), Foundation \(foundation)")
        } else if let fast {
            Fuzz.require(depth(fast) > JSONValue.maximumDepth, "JSONReader accepts what Foundation refuses: \(fast)")
        }
        guard let value = fast else { return }
        let encoded = try? TallyJSON.encode(value)
        Fuzz.require(encoded.flatMap { try? JSONReader.parse($0) } == value, "a JSON value does not survive its own encoding: \(value)")
    }
}

/// How deeply `value` nests, counting the innermost value (a scalar or an empty container) as 1,
/// as `JSONValue.maximumDepth` counts.
private func depth(_ value: JSONValue) -> Int {
    switch value {
    case .array(let elements): 1 + (elements.map(depth).max() ?? 0)
    case .object(let members): 1 + (members.values.map(depth).max() ?? 0)
    default: 1
    }
}
