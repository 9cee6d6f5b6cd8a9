import Foundation
import FuzzSupport
import TallyProtocol

/// Any JSON text, as both of Tally's readers read it: `JSONReader` (every request body, in the
/// gateway and in the worker) and Foundation's decoder into `JSONValue` (replies, events, alerts).
/// `JSONReader` promises to accept what Foundation accepts, as the same value, and to be stricter
/// in two places only, where Foundation accepts what is not JSON: the value of a repeated key,
/// which Foundation drops without checking its strings and numbers, and `JSONReader` checks like
/// any other (so such a text must read, once those values are replaced by `null`, as Foundation
/// reads it); and a text with a NUL byte, which is never JSON and which Foundation reads at times,
/// erratically (`7\0` as 7, `4\0\0\0\u{5}` as 4 but not `4\0\0`, `{\0}\0}` as `{}`), as if a NUL
/// ended or blanked the text: `JSONReader` must refuse every such text. Foundation's side refuses only what nests deeper than
/// `JSONValue.maximumDepth`. A value either reads survives `TallyJSON`'s
/// encoding exactly: integers stay integers, strings stay strings. One kind of number alone comes
/// back as another: a whole Double from 2^53 up that fits 64 bits, such as the Double of
/// `999999999999999999.00000000000000000001`, is written in its shortest form (`1e+18`), which
/// Foundation (and so `JSONReader`) reads as an integer, exactly: one whose Double it is.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    Fuzz.onSocketThread(start, count) { input in
        let fast = try? JSONReader.parse(input)
        let foundation = try? JSONDecoder().decode(JSONValue.self, from: input)
        if input.contains(0) {
            Fuzz.require(fast == nil, "JSONReader accepts a text with a NUL byte: \(String(describing: fast))")
        } else if let foundation, fast == nil {
            var text = input
            for range in RepeatedKeys.droppedValues(in: input).reversed() { text.replaceSubrange(range, with: Data("null".utf8)) }
            let withoutDropped = try? JSONReader.parse(text)
            Fuzz.require(
                text != input && withoutDropped == foundation,
                "JSONReader refuses what Foundation reads as \(foundation), and not only in the values of repeated keys")
        } else if let foundation {
            Fuzz.require(fast == foundation, "JSONReader reads \(String(describing: fast)), Foundation \(foundation)")
        } else if let fast {
            Fuzz.require(depth(fast) > JSONValue.maximumDepth, "JSONReader accepts what Foundation refuses: \(fast)")
        }
        guard let value = fast else { return }
        let encoded = try? TallyJSON.encode(value)
        let reread = encoded.flatMap { try? JSONReader.parse($0) }
        Fuzz.require(reread.map { survives(value, as: $0) } ?? false, "a JSON value does not survive its own encoding: \(value)")
    }
}

/// Whether `read` is `original` read back from its encoding: equal, but that a whole Double from
/// 2^53 up that fits 64 bits may come back as an integer that is the same Double: the digits of
/// its shortest form (`9.990000017609074e+17`), which Foundation reads exactly.
private func survives(_ original: JSONValue, as read: JSONValue) -> Bool {
    switch (original, read) {
    case (.number(let double), .integer(let integer)):
        double.magnitude >= 0x1p53 && Double(integer) == double
    case (.array(let originals), .array(let reads)):
        originals.count == reads.count && zip(originals, reads).allSatisfy { survives($0, as: $1) }
    case (.object(let originals), .object(let reads)):
        originals.count == reads.count
            && originals.allSatisfy { key, value in reads[key].map { survives(value, as: $0) } ?? false }
    default:
        original == read
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

/// Where a JSON text that Foundation accepted repeats a key in an object: the ranges of the values
/// Foundation dropped (every value of a key after its first), outermost only, in order. Only
/// structure is read here, which Foundation checked: a string ends at its first unescaped quote,
/// a number or literal at the next delimiter, whatever lies between.
private struct RepeatedKeys {
    private let bytes: Data
    private var index: Data.Index
    private var dropped: [Range<Data.Index>] = []

    static func droppedValues(in text: Data) -> [Range<Data.Index>] {
        var walker = RepeatedKeys(bytes: text, index: text.startIndex)
        if text.starts(with: [0xEF, 0xBB, 0xBF]) { walker.index += 3 }
        walker.value(dropped: false)
        return walker.dropped
    }

    private init(bytes: Data, index: Data.Index) {
        self.bytes = bytes
        self.index = index
    }

    private var current: UInt8? { index < bytes.endIndex ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, [0x20, 0x09, 0x0A, 0x0D].contains(byte) { index += 1 }
    }

    /// Reads a value; `dropped` when it lies inside one already dropped.
    private mutating func value(dropped: Bool) {
        skipWhitespace()
        switch current {
        case UInt8(ascii: "{")?: container(close: UInt8(ascii: "}"), keyed: true, dropped: dropped)
        case UInt8(ascii: "[")?: container(close: UInt8(ascii: "]"), keyed: false, dropped: dropped)
        case UInt8(ascii: "\"")?: _ = string()
        default:
            while let byte = current, ![UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"), 0x20, 0x09, 0x0A, 0x0D].contains(byte) {
                index += 1
            }
        }
    }

    private mutating func container(close: UInt8, keyed: Bool, dropped: Bool) {
        index += 1
        var keys: Set<String> = []
        while true {
            skipWhitespace()
            guard let byte = current, byte != close else { break }
            if byte == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if keyed {
                let key = string()
                skipWhitespace()
                index += 1  // the colon
                skipWhitespace()
                let start = index
                let repeated = !keys.insert(key).inserted
                value(dropped: dropped || repeated)
                if repeated && !dropped { self.dropped.append(start..<index) }
            } else {
                value(dropped: dropped)
            }
        }
        index += 1
    }

    /// A string, decoded as Foundation decodes a key (keys are never dropped, so they are valid).
    private mutating func string() -> String {
        let start = index
        index += 1
        while let byte = current, byte != UInt8(ascii: "\"") {
            index += byte == UInt8(ascii: "\\") ? 2 : 1
        }
        index = min(index + 1, bytes.endIndex)
        return (try? JSONDecoder().decode(String.self, from: bytes[start..<index])) ?? ""
    }
}
