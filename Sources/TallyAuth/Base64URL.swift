import Foundation

/// Base64url without padding (RFC 4648 §5), as JWS and JWK write binary values.
///
/// Foundation's base64 with the two alphabets' differing characters swapped byte by byte: a
/// worker decodes three parts of every token it sees for the first time, and swapping through
/// `String.replacingOccurrences` was 40 % of that check (ops/token-verification).
public enum Base64URL {
    public static func encode(_ data: some DataProtocol) -> String {
        var bytes = Array(Data(data).base64EncodedData())
        while bytes.last == UInt8(ascii: "=") { bytes.removeLast() }
        for index in bytes.indices {
            switch bytes[index] {
            case UInt8(ascii: "+"): bytes[index] = UInt8(ascii: "-")
            case UInt8(ascii: "/"): bytes[index] = UInt8(ascii: "_")
            default: break
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The bytes of `text`, or nil when it is not canonical unpadded base64url: padding, `+`, `/`,
    /// spaces, line breaks and stray low bits in the last character are all refused, so each
    /// value has exactly one spelling and a changed character always changes the bytes.
    public static func decode(_ text: some StringProtocol) -> Data? {
        var base64: [UInt8] = []
        base64.reserveCapacity(text.utf8.count + 3)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                base64.append(byte)
            case UInt8(ascii: "-"): base64.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): base64.append(UInt8(ascii: "/"))
            default: return nil
            }
        }
        guard base64.count % 4 != 1 else { return nil }
        base64 += repeatElement(UInt8(ascii: "="), count: (4 - base64.count % 4) % 4)
        // Foundation ignores stray low bits in the last character; spelling the bytes again refuses them.
        guard let data = Data(base64Encoded: Data(base64)), encode(data).utf8.elementsEqual(text.utf8) else { return nil }
        return data
    }
}
