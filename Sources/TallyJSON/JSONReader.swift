import Foundation

/// Reads JSON text into a `JSONValue` in one pass over its bytes, without Foundation's decoder:
/// how every request body is read, once per process it passes through.
///
/// It accepts what Foundation's `JSONDecoder` accepts into a `JSONValue`, so replacing one with the
/// other changes no reply: UTF-8 text, an optional byte order mark, any top-level value, a
/// trailing comma before `]` or `}`, at most 512 levels of nesting, the first of duplicate keys.
/// It is stricter where Foundation accepts what is not JSON: the value of a repeated key, which
/// Foundation drops without checking its strings (escapes, UTF-8) or its numbers (range), is
/// checked like any other, so a text that is not JSON is refused wherever the fault lies; and a
/// text with a NUL byte, some of which Foundation reads (`7` then a NUL as 7), is refused.
/// A number is `.integer` when its value is a whole number that fits 64 bits (`5000.0` and `5e3`
/// are 5000), else `.number`; a number too large for a `Double` is not valid.
public struct JSONReader {
    /// Why a text is not JSON; only whether it is matters to callers.
    public struct SyntaxError: Error, Sendable {
        public let offset: Int
    }

    private let bytes: UnsafeRawBufferPointer
    private var index = 0
    private var depth = 0

    private static let maximumDepth = 512

    private init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    public static func parse(_ data: Data) throws(SyntaxError) -> JSONValue {
        let result: Result<JSONValue, SyntaxError> = data.withUnsafeBytes { buffer in
            var reader = JSONReader(buffer)
            return Result { () throws(SyntaxError) -> JSONValue in
                try reader.start()
                let value = try reader.value()
                try reader.end()
                return value
            }
        }
        return try result.get()
    }

    /// Reads a document that should be one object, member by member, without building the object:
    /// `visit` gets each key in order and reads the member's value from the reader it is handed,
    /// with `value()` to build it or `skipValue()` to check it and learn only its type. So a reader
    /// that needs a few members, or only the type of one (the gateway and `args`), pays nothing for
    /// the rest. Returns false, having checked the whole document, when it is not an object.
    public static func readMembers(
        of data: Data, _ visit: (String, inout JSONReader) throws(SyntaxError) -> Void
    ) throws(SyntaxError) -> Bool {
        let result: Result<Bool, SyntaxError> = data.withUnsafeBytes { buffer in
            var reader = JSONReader(buffer)
            return Result { () throws(SyntaxError) -> Bool in
                try reader.start()
                guard reader.index < reader.bytes.count, reader.bytes[reader.index] == UInt8(ascii: "{") else {
                    _ = try reader.value()
                    try reader.end()
                    return false
                }
                try reader.members(visit)
                try reader.end()
                return true
            }
        }
        return try result.get()
    }

    private mutating func start() throws(SyntaxError) {
        if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF { index = 3 }
        skipWhitespace()
    }

    private mutating func end() throws(SyntaxError) {
        skipWhitespace()
        guard index == bytes.count else { throw failure() }
    }

    // MARK: Values

    /// The value at the reading position, built.
    public mutating func value() throws(SyntaxError) -> JSONValue {
        guard index < bytes.count else { throw failure() }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return .array(try array())
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw failure()
        }
    }

    private mutating func object() throws(SyntaxError) -> JSONValue {
        var members: [String: JSONValue] = [:]
        members.reserveCapacity(8)
        try self.members { key, reader throws(SyntaxError) in
            let member = try reader.value()
            // The first of duplicate keys wins, as in Foundation: kept through the subscript's
            // in-place access, one hash of the key where a look-up and an insert took two.
            Self.keepFirst(&members[key], member)
        }
        return .object(members)
    }

    private static func keepFirst(_ slot: inout JSONValue?, _ value: JSONValue) {
        if slot == nil { slot = value }
    }

    /// An object at the reading position, each member's value read by `visit`.
    private mutating func members(_ visit: (String, inout JSONReader) throws(SyntaxError) -> Void) throws(SyntaxError) {
        try enter()
        defer { depth -= 1 }
        index += 1
        skipWhitespace()
        if try consume(UInt8(ascii: "}")) { return }
        while true {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure() }
            let key = try string()
            skipWhitespace()
            guard try consume(UInt8(ascii: ":")) else { throw failure() }
            skipWhitespace()
            try visit(key, &self)
            skipWhitespace()
            if try consume(UInt8(ascii: "}")) { return }
            guard try consume(UInt8(ascii: ",")) else { throw failure() }
            skipWhitespace()
            if try consume(UInt8(ascii: "}")) { return }  // a trailing comma
        }
    }

    private mutating func array() throws(SyntaxError) -> [JSONValue] {
        try enter()
        defer { depth -= 1 }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if try consume(UInt8(ascii: "]")) { return elements }
        while true {
            elements.append(try value())
            skipWhitespace()
            if try consume(UInt8(ascii: "]")) { return elements }
            guard try consume(UInt8(ascii: ",")) else { throw failure() }
            skipWhitespace()
            if try consume(UInt8(ascii: "]")) { return elements }  // a trailing comma
        }
    }

    /// Checks the value at the reading position without building it; returns an empty value of its
    /// type (numbers, booleans and null are cheap, and built).
    public mutating func skipValue() throws(SyntaxError) -> JSONValue {
        guard index < bytes.count else { throw failure() }
        switch bytes[index] {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            let isObject = bytes[index] == UInt8(ascii: "{")
            try skipContainer()
            return isObject ? .object([:]) : .array([])
        case UInt8(ascii: "\""):
            try skipString()
            return .string("")
        default:
            return try value()
        }
    }

    private mutating func skipContainer() throws(SyntaxError) {
        let isObject = bytes[index] == UInt8(ascii: "{")
        let close = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
        try enter()
        defer { depth -= 1 }
        index += 1
        skipWhitespace()
        if try consume(close) { return }
        while true {
            if isObject {
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure() }
                try skipString()
                skipWhitespace()
                guard try consume(UInt8(ascii: ":")) else { throw failure() }
                skipWhitespace()
            }
            guard index < bytes.count else { throw failure() }
            switch bytes[index] {
            case UInt8(ascii: "{"), UInt8(ascii: "["): try skipContainer()
            case UInt8(ascii: "\""): try skipString()
            default: _ = try value()
            }
            skipWhitespace()
            if try consume(close) { return }
            guard try consume(UInt8(ascii: ",")) else { throw failure() }
            skipWhitespace()
            if try consume(close) { return }
        }
    }

    private mutating func enter() throws(SyntaxError) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw failure() }
    }

    private mutating func literal(_ word: StaticString) throws(SyntaxError) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw failure() }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { throw failure() }
        index += count
    }

    // MARK: Numbers

    private mutating func number() throws(SyntaxError) -> JSONValue {
        let start = index
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw failure() }
        var magnitude: UInt64 = 0
        var overflow = false
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, isDigit(bytes[index]) {
                let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
                let (sum, o2) = times10.addingReportingOverflow(UInt64(bytes[index] - UInt8(ascii: "0")))
                magnitude = sum
                overflow = overflow || o1 || o2
                index += 1
            }
        }
        var integral = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            integral = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure() }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            integral = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure() }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if integral && !overflow {
            if negative {
                if magnitude <= UInt64(Int64.max) + 1 { return .integer(magnitude == UInt64(Int64.max) + 1 ? .min : -Int64(magnitude)) }
            } else if magnitude <= UInt64(Int64.max) {
                return .integer(Int64(magnitude))
            }
        }
        // A fraction or an exponent is read through Double, and is an integer when it is whole, as
        // in Foundation; a plain integer past 64 bits is a Double.
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let double = Double(text), double.isFinite else { throw failure(at: start) }
        if !integral, let whole = Int64(exactly: double) {
            // Foundation takes a whole Double's value below 2^53 (so 3.999… with enough nines reads
            // as 4). From 2^53 up, where Doubles are 2 or more apart, it reads the text again as a
            // Decimal and takes that without its fraction, so 999999999999999999.5 reads as
            // 999999999999999999 and not as its Double (10^18) — unless the Decimal's significand
            // does not fit 64 bits (999999999999999999.00000000000000000001), when the number is
            // read as the Double. The Decimal is Foundation's own parse, so the two cannot drift.
            guard double.magnitude >= 0x1p53 else { return .integer(whole) }
            return Self.wholeNumberAsFoundationReadsIt(text).map(JSONValue.integer) ?? .number(double)
        }
        return .number(double)
    }

    /// The whole number Foundation's `JSONDecoder` reads from `numeral` (a JSON number whose
    /// Double is whole and at least 2^53) where it decodes an `Int64`: the numeral as a `Decimal`,
    /// truncated, or nil where that significand or the result does not fit 64 bits (and Foundation
    /// falls back to the Double). This mirrors its `FixedWidthInteger(Decimal)` conversion, which
    /// takes the significand (its digits, unscaled) only when it fits a `UInt64`, and refuses -2^63.
    private static func wholeNumberAsFoundationReadsIt(_ numeral: String) -> Int64? {
        guard let decimal = Decimal(string: numeral), !decimal.isNaN,
              var magnitude = UInt64(decimal.significand.description)
        else { return nil }
        if decimal.exponent < 0 {
            for _ in 0 ..< -decimal.exponent { magnitude /= 10 }
        } else {
            for _ in 0 ..< decimal.exponent {
                let (product, overflow) = magnitude.multipliedReportingOverflow(by: 10)
                guard !overflow else { return nil }
                magnitude = product
            }
        }
        guard let value = Int64(exactly: magnitude) else { return nil }
        return decimal.sign == .minus ? -value : value
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    // MARK: Strings

    /// The text of `bytes`, or nil when they are not UTF-8. Not `String(validating:as:)`, which
    /// is generic and unspecialized here: it instantiated type metadata on every string, a few
    /// percent of a worker's time. Decoding repairs what is not UTF-8, so the bytes are UTF-8
    /// exactly when the decoded text gives them back unchanged; ASCII needs no second look.
    private static func validUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let string = String(decoding: bytes, as: UTF8.self)
        if bytes.allSatisfy({ $0 < 0x80 }) { return string }
        return string.utf8.elementsEqual(bytes) ? string : nil
    }

    private mutating func string() throws(SyntaxError) -> String {
        index += 1  // the opening quote
        let start = index
        // Fast path: no escapes, so the text is the bytes themselves.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
                index += 1
                guard let string = Self.validUTF8(text.assumingMemoryBound(to: UInt8.self)) else { throw failure(at: start) }
                return string
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw failure() }
            index += 1
        }
        var decoded = [UInt8](UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let string = decoded.withUnsafeBufferPointer(Self.validUTF8) else { throw failure(at: start) }
                return string
            case UInt8(ascii: "\\"):
                try escape(into: &decoded)
            default:
                guard byte >= 0x20 else { throw failure() }
                decoded.append(byte)
                index += 1
            }
        }
        throw failure()
    }

    /// Checks a string without building it.
    private mutating func skipString() throws(SyntaxError) {
        index += 1
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                // Escapes are ASCII, so the raw bytes are valid UTF-8 exactly when the text is.
                guard Self.isValidUTF8(UnsafeRawBufferPointer(rebasing: bytes[start..<index])) else { throw failure(at: start) }
                index += 1
                return
            }
            if byte == UInt8(ascii: "\\") {
                _ = try escapedScalar()
            } else {
                guard byte >= 0x20 else { throw failure() }
                index += 1
            }
        }
        throw failure()
    }

    /// Decodes one escape sequence at `index` (the backslash) as UTF-8.
    private mutating func escape(into out: inout [UInt8]) throws(SyntaxError) {
        let scalar = try escapedScalar()
        if scalar.isASCII {
            out.append(UInt8(scalar.value))
        } else {
            out.append(contentsOf: UTF8.encode(scalar)!)
        }
    }

    /// Reads one escape sequence at `index` (the backslash); a surrogate pair is one scalar.
    private mutating func escapedScalar() throws(SyntaxError) -> Unicode.Scalar {
        index += 1
        guard index < bytes.count else { throw failure() }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return Unicode.Scalar(byte)
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            var value = try hex4()
            if (0xD800...0xDBFF).contains(value) {
                // A high surrogate must be followed by an escaped low one.
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw failure()
                }
                index += 2
                let low = try hex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw failure() }
                value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
            }
            // A lone low surrogate is not a scalar.
            guard let scalar = Unicode.Scalar(value) else { throw failure() }
            return scalar
        default:
            throw failure()
        }
    }

    private mutating func hex4() throws(SyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw failure() }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure()
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    // MARK: Helpers

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func consume(_ byte: UInt8) throws(SyntaxError) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// Whether `bytes` are well-formed UTF-8 (no overlong forms, surrogates or values past U+10FFFF).
    static func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        let count = bytes.count
        while index < count {
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            func continuation(_ offset: Int, _ range: ClosedRange<UInt8> = 0x80...0xBF) -> Bool {
                index + offset < count && range.contains(bytes[index + offset])
            }
            switch lead {
            case 0xC2...0xDF:
                guard continuation(1) else { return false }
                index += 2
            case 0xE0...0xEF:
                let second: ClosedRange<UInt8> = lead == 0xE0 ? 0xA0...0xBF : lead == 0xED ? 0x80...0x9F : 0x80...0xBF
                guard continuation(1, second), continuation(2) else { return false }
                index += 3
            case 0xF0...0xF4:
                let second: ClosedRange<UInt8> = lead == 0xF0 ? 0x90...0xBF : lead == 0xF4 ? 0x80...0x8F : 0x80...0xBF
                guard continuation(1, second), continuation(2), continuation(3) else { return false }
                index += 4
            default:
                return false
            }
        }
        return true
    }

    private func failure(at offset: Int? = nil) -> SyntaxError { SyntaxError(offset: offset ?? index) }
}
