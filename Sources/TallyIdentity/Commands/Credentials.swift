import Foundation
import TallyProtocol

/// What people sign in with: 1 to 64 letters, digits, `.`, `_` or `-`, starting with a letter or
/// digit. Usernames are case-insensitive: `Ann` and `ann` are one person, kept in lower case.
enum Username {
    static func read(_ args: Arguments, _ key: String = "username") throws(TallyError) -> String {
        let text = try args.string(key, example: "\"ann\"")
        return try check(text, field: args.field(key))
    }

    static func check(_ text: String, field: String) throws(TallyError) -> String {
        let name = text.lowercased()
        let allowed = name.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
        guard allowed, (1...64).contains(name.utf8.count), let first = name.unicodeScalars.first,
            CharacterSet.alphanumerics.contains(first)
        else {
            throw TallyError.invalidArgument(
                "a username is 1 to 64 letters (a-z), digits, '.', '_' or '-', starting with a letter or digit; '\(text.prefix(80))' is not one",
                field: field)
        }
        return name
    }
}

/// Passwords as people choose them (NIST SP 800-63B): at least 8 characters, any characters at
/// all, at most 1024 bytes. Nothing else is demanded; length is what makes a password strong.
enum Password {
    static let shortest = 8
    static let longestBytes = 1024

    /// A password to check against a stored one: only its size is checked.
    static func read(_ args: Arguments, _ key: String) throws(TallyError) -> String {
        let text = try args.string(key, example: "\"correct horse battery staple\"")
        guard !text.isEmpty, text.utf8.count <= longestBytes else {
            throw TallyError.invalidArgument("\(key) must be 1 to \(longestBytes) bytes", field: args.field(key))
        }
        return text
    }

    /// A password to set: also long enough.
    static func readNew(_ args: Arguments, _ key: String) throws(TallyError) -> String {
        let text = try read(args, key)
        try check(text, field: args.field(key))
        return text
    }

    static func check(_ text: String, field: String) throws(TallyError) {
        guard text.count >= shortest else {
            throw TallyError.invalidArgument(
                "a password needs at least \(shortest) characters; a few words make a long one that is easy to remember", field: field)
        }
        guard text.utf8.count <= longestBytes else {
            throw TallyError.invalidArgument("a password is at most \(longestBytes) bytes", field: field)
        }
    }
}

/// Role names: `admin`, `service`, `manager`: 1 to 32 lower-case letters, digits or `_`, starting
/// with a letter.
enum RoleName {
    static let admin = "admin"
    static let service = "service"

    static func read(_ args: Arguments, _ key: String = "role") throws(TallyError) -> String {
        let text = try args.string(key, example: "\"admin\"")
        return try check(text, field: args.field(key))
    }

    static func check(_ text: String, field: String) throws(TallyError) -> String {
        let valid = text.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "_")
        }
        guard valid, (1...32).contains(text.utf8.count), let first = text.utf8.first, first >= UInt8(ascii: "a") else {
            throw TallyError.invalidArgument(
                "a role is 1 to 32 lower-case letters, digits or '_', starting with a letter (admin, service, manager); '\(text.prefix(80))' is not one",
                field: field)
        }
        return text
    }
}
