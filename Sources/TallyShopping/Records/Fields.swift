import Foundation
import TallyProtocol
import TallyStorage

/// Item names and the key that says two names are the same item.
enum ItemName {
    static let longest = 100

    /// Trimmed, runs of inner whitespace collapsed to one space, NFC, case-folded:
    /// " Whole  MILK " and "whole milk" are the same item.
    static func key(_ name: String) -> String {
        var name = name
        return name.withUTF8(asciiKey) ?? unicodeKey(name)
    }

    /// The key as Foundation makes it, for any name.
    static func unicodeKey(_ name: String) -> String {
        name.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
            .precomposedStringWithCanonicalMapping.folding(options: .caseInsensitive, locale: nil)
    }

    /// The same key for an ASCII name, byte by byte, or nil for any other: in ASCII, NFC changes
    /// nothing and case folding is A-Z to a-z. Foundation's way took 3 % of a shopping worker
    /// adding items, most names are ASCII, and `ItemNameTests` holds the two equal.
    private static func asciiKey(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var key: [UInt8] = []
        key.reserveCapacity(bytes.count)
        var spaceDue = false
        for byte in bytes {
            guard byte < 0x80 else { return nil }
            // `Character.isWhitespace` in ASCII: tab, line feed, vertical tab, form feed, return, space.
            if byte == 0x20 || (0x09...0x0D).contains(byte) {
                spaceDue = !key.isEmpty
                continue
            }
            if spaceDue {
                key.append(0x20)
                spaceDue = false
            }
            key.append((0x41...0x5A).contains(byte) ? byte + 0x20 : byte)
        }
        return String(decoding: key, as: UTF8.self)
    }
}

enum ListName {
    static let longest = 50
}

enum Unit {
    static let longest = 20
}

/// Ids, kinds and quantities as the commands read them.
enum Fields {
    static let largestQuantity = 10_000

    static func quantity(_ args: Arguments, _ key: String) throws(TallyError) -> Int? {
        try args.optionalInteger(key, in: 0...largestQuantity)
    }

    static func kind(_ args: Arguments, required: Bool) throws(TallyError) -> ListKind? {
        guard let text = try args.optionalString("kind") else {
            if required { throw .invalidArgument("kind is required: \"template\" or \"shopping\"", field: args.field("kind")) }
            return nil
        }
        guard let kind = ListKind(rawValue: text) else {
            throw .invalidArgument("kind must be \"template\" or \"shopping\", not \"\(text)\"", field: args.field("kind"))
        }
        return kind
    }
}

enum ListKind: String, Codable, Sendable {
    case template, shopping
}

/// The errors that depend on what is stored.
enum ShoppingErrors {
    static func listNotFound(_ id: Int64, field: String = "args.list_id") -> TallyError {
        TallyError(.notFound, "you have no list \(id)", field: field)
    }

    static func itemNotFound(_ id: Int64, list: Int64) -> TallyError {
        TallyError(.notFound, "list \(list) has no item \(id)", field: "args.item_id")
    }

    static func notOnTemplates(_ list: ListRecord, command: String) -> TallyError {
        TallyError(
            .failedPrecondition,
            "list \(list.id) is a template: templates hold what to buy, not purchases; \(command) works on shopping lists",
            field: "args.list_id")
    }

    static func totalTooLarge(_ currency: String, largest: String, field: String) -> TallyError {
        .invalidArgument("the list's total would pass \(largest) \(currency), the largest amount a list can total", field: field)
    }

    static func listFull(_ id: Int64) -> TallyError {
        TallyError(.resourceExhausted, "list \(id) already holds \(ItemRecord.mostPerList) items, the most a list can hold", field: "args.list_id")
    }
}

/// The opaque `cursor` of `shopping.lists`: where the previous page ended (ids grow in commit order).
let listCursor = IDCursor(command: "shopping.lists")
