import Foundation

/// Where the next page of a search starts: after the last currency of the previous page in the
/// order (rank, code). Opaque to clients (base64url).
///
/// The cursor is a position, not an offset, so a page never repeats or skips a currency that
/// stays in the results, even if the data is reloaded between pages. It remembers which search it
/// belongs to (a fingerprint of the folded query, `include_retired` and the names' language), and
/// is refused for another one, whose order it does not describe.
struct SearchCursor: Equatable, Sendable {
    var rank: MatchRank
    var code: String
    var fingerprint: String

    static func fingerprint(query: String, includeRetired: Bool, language: NameLanguage) -> String {
        // FNV-1a, 64 bits: stable across processes and runs, unlike Swift's seeded Hasher.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in Array("\(query)\u{0}\(includeRetired)\u{0}\(language.rawValue)".utf8) {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    var encoded: String {
        Data("1:\(rank.rawValue):\(code):\(fingerprint)".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    init(rank: MatchRank, code: String, fingerprint: String) {
        self.rank = rank
        self.code = code
        self.fingerprint = fingerprint
    }

    /// Reads a cursor this service wrote, or nil.
    init?(encoded: String) {
        var base64 = encoded.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard encoded.count <= 200, let data = Data(base64Encoded: base64),
            let text = String(data: data, encoding: .utf8)
        else { return nil }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 4, parts[0] == "1", let number = Int(parts[1]), let rank = MatchRank(rawValue: number),
            parts[2].utf8.count == 3, parts[2].utf8.allSatisfy({ (65...90).contains($0) }), parts[3].utf8.count == 16
        else { return nil }
        self.init(rank: rank, code: parts[2], fingerprint: parts[3])
    }

    /// Whether (rank, code) comes after this cursor's position.
    func precedes(rank other: MatchRank, code otherCode: String) -> Bool {
        (rank.rawValue, code) < (other.rawValue, otherCode)
    }
}
