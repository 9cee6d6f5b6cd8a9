import Foundation
import TallyProtocol

/// An account's name as typed, trimmed, with the key duplicates are found by.
struct AccountName: Equatable {
    /// User-perceived characters (grapheme clusters): "🇯🇵" and "é" count one each.
    static let longest = 25
    /// A bound on storage whatever the characters, far above 25 of any real ones.
    static let longestBytes = 1024

    let text: String
    /// NFC, case-folded: "Wallet", " wallet " and "WALLET" share a key.
    let key: String

    /// Reads a present name; blank is the caller's to report (it has the localized message).
    /// Returns nil when the name is blank.
    static func read(_ args: Arguments) throws(TallyError) -> AccountName? {
        guard let raw = try args.optionalString("name") else { return nil }
        let typed = TypedText(raw)
        let text = typed.text
        guard !text.isEmpty else { return nil }
        let field = args.field("name")
        guard typed.characters <= longest else {
            throw .invalidArgument("name must be at most \(longest) characters; this one has \(typed.characters)", field: field)
        }
        guard text.utf8.count <= longestBytes else {
            throw .invalidArgument("name must be at most \(longestBytes) bytes of UTF-8; this one has \(text.utf8.count)", field: field)
        }
        guard !typed.hasControls else {
            throw .invalidArgument("name must not contain control characters such as tabs or line breaks", field: field)
        }
        return AccountName(text: text, key: text.precomposedStringWithCanonicalMapping.folding(options: .caseInsensitive, locale: nil))
    }
}

/// The errors about accounts that depend on what is stored.
enum AccountErrors {
    static func notFound(_ id: Int64) -> TallyError {
        TallyError(.notFound, "you have no account \(id)", field: "args.id")
    }

    static func nameTaken(by existing: AccountRecord) -> TallyError {
        TallyError(
            .alreadyExists, "you already have an account named \"\(existing.name)\" (id \(existing.id)); names are compared ignoring case",
            field: "args.name")
    }
}
