import Crypto
import Foundation
import TallyAuth

/// Secrets the identity service hands out and later takes back: refresh tokens and service
/// tokens. 256 random bits behind a prefix that says what they are (so secret scanners and
/// people recognise them: `tally_rt_…`, `tally_st_…`). Only their SHA-256 is stored: a copy of the
/// database does not let anyone use them, and 256 random bits need no slow hash.
struct OpaqueToken {
    enum Kind: String {
        case refresh = "tally_rt_"
        case service = "tally_st_"
    }

    let text: String

    static func generate(_ kind: Kind) -> OpaqueToken {
        OpaqueToken(text: kind.rawValue + randomText(bytes: 32))
    }

    /// What is stored and looked up: the hex SHA-256 of the whole token.
    var hash: String { Self.hash(text) }

    static func hash(_ text: String) -> String {
        SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// Whether `text` looks like a token of `kind` (the right prefix and length), before any lookup.
    static func isWellFormed(_ text: String, _ kind: Kind) -> Bool {
        text.hasPrefix(kind.rawValue) && text.utf8.count == kind.rawValue.utf8.count + 43
    }

    /// `bytes` random bytes, base64url: session ids, generated passwords.
    static func randomText(bytes: Int) -> String {
        Base64URL.encode(SymmetricKey(size: SymmetricKeySize(bitCount: bytes * 8)).withUnsafeBytes { Data($0) })
    }
}
