/// W3C trace context's `traceparent` (https://www.w3.org/TR/trace-context/#traceparent-header):
/// `version-traceid-parentid-flags`, such as `00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01`.
///
/// Read wherever Tally takes one (a request's envelope, the frame the gateway hands a worker, an
/// event's CloudEvents attribute), so every process accepts the same ones. Version 00 is exactly
/// 55 characters; a later version may append `-`-separated fields, which are ignored, as the
/// recommendation asks. `ff` is never a version, and all-zero ids are invalid.
public struct TraceParent: Sendable, Equatable {
    /// 32 lower-case hex digits.
    public let traceID: String
    /// 16 lower-case hex digits: the caller's span.
    public let spanID: String
    public let sampled: Bool

    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count >= 55, bytes[2] == UInt8(ascii: "-"), bytes[35] == UInt8(ascii: "-"), bytes[52] == UInt8(ascii: "-"),
            Self.isHex(bytes[0..<2]), Self.isHex(bytes[3..<35]), Self.isHex(bytes[36..<52]), Self.isHex(bytes[53..<55])
        else { return nil }
        let version = String(decoding: bytes[0..<2], as: UTF8.self)
        guard version != "ff", version == "00" ? bytes.count == 55 : (bytes.count == 55 || bytes[55] == UInt8(ascii: "-")) else {
            return nil
        }
        let traceID = String(decoding: bytes[3..<35], as: UTF8.self)
        let spanID = String(decoding: bytes[36..<52], as: UTF8.self)
        guard traceID.contains(where: { $0 != "0" }), spanID.contains(where: { $0 != "0" }),
            let flags = UInt8(String(decoding: bytes[53..<55], as: UTF8.self), radix: 16)
        else { return nil }
        self.traceID = traceID
        self.spanID = spanID
        sampled = flags & 1 == 1
    }

    /// A new trace's first span, sampled: what a caller without a tracer of its own sends
    /// (`tally call --trace`) to follow its request.
    public static func newTrace() -> TraceParent {
        var generator = SystemRandomNumberGenerator()
        func hex(_ value: UInt64) -> String {
            let digits = String(value, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }
        // A random 64-bit value is all zero with negligible odds; `| 1` rules it out for the span.
        return TraceParent(
            traceID: hex(generator.next()) + hex(generator.next() | 1), spanID: hex(generator.next() | 1), sampled: true)
    }

    private init(traceID: String, spanID: String, sampled: Bool) {
        self.traceID = traceID
        self.spanID = spanID
        self.sampled = sampled
    }

    /// The `traceparent` of version 00 for these ids.
    public var text: String { "00-\(traceID)-\(spanID)-\(sampled ? "01" : "00")" }

    private static func isHex(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
    }
}
