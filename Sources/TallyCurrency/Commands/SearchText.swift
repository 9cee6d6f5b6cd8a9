import Foundation

/// The one normal form that search terms are stored in and queries are compared in, so that
/// "yen", "Yen", "ＹＥＮ" and "ÉURO" find what they mean.
///
/// - Width and compatibility forms fold (Unicode NFKC): full-width `ＵＳＤ` is `usd`, `￥` is `¥`,
///   half-width `ﾄﾞﾙ` is `ドル`.
/// - Accents fold: combining diacritical marks are dropped (`é` is `e`, `ō` is `o`), and the
///   Latin letters that have no decomposition are spelled out (`ø` `o`, `ł` `l`, `ß` `ss`, `æ` `ae`).
///   Only Latin-style marks go: the Japanese voicing marks stay, so `ド` is not `ト`.
/// - Case folds to lower case; curly quotes become straight ones; runs of white space become one
///   space, and leading and trailing white space goes.
///
/// The fold is the same in every process and on every platform (no locale is involved), because
/// terms folded by one process when it loads are compared with queries folded by another.
public enum SearchText {
    public static func fold(_ text: String) -> String {
        let decomposed = text.decomposedStringWithCompatibilityMapping
        var scalars = String.UnicodeScalarView()
        for scalar in decomposed.unicodeScalars where !isDiacriticalMark(scalar) {
            scalars.append(scalar)
        }
        let lowered = String(scalars).precomposedStringWithCanonicalMapping.lowercased()
        // Scalar by scalar, not character by character: a mark that follows white space would
        // otherwise join the space that replaces it into one character, which the next fold
        // would drop whole as white space, so folding twice would differ from folding once.
        var folded = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in lowered.unicodeScalars {
            if scalar.properties.isWhitespace {
                pendingSpace = !folded.isEmpty
                continue
            }
            if pendingSpace {
                folded.append(" ")
                pendingSpace = false
            }
            if let plain = spelledOut[scalar] {
                folded.append(contentsOf: plain.unicodeScalars)
            } else {
                folded.append(scalar)
            }
        }
        return String(folded)
    }

    /// Combining marks of Latin, Greek and Cyrillic script (and their extensions), but not the kana
    /// voicing marks U+3099 and U+309A.
    private static func isDiacriticalMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0300...0x036F, 0x1AB0...0x1AFF, 0x1DC0...0x1DFF, 0x20D0...0x20FF, 0xFE20...0xFE2F: true
        default: false
        }
    }

    /// Letters that carry an accent or ligature but do not decompose, and punctuation with plain forms.
    private static let spelledOut: [Unicode.Scalar: String] = [
        "ø": "o", "ł": "l", "đ": "d", "ħ": "h", "ı": "i", "ŀ": "l", "ŧ": "t",
        "ß": "ss", "æ": "ae", "œ": "oe", "þ": "th", "ð": "d",
        "’": "'", "‘": "'", "ʼ": "'", "“": "\"", "”": "\"", "–": "-", "—": "-",
    ]
}
