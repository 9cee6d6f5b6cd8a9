import Foundation
import TallyProtocol

/// An opaque page cursor for lists ordered by a growing id: it says where the previous page
/// ended, so a row created meanwhile appears on a later page and a deleted one drops out, without
/// repeating or skipping the rest. Clients pass `next_cursor` back unchanged.
public struct IDCursor: Sendable {
    /// The command that gives the cursors out, named in the error for a foreign cursor.
    public let command: String
    private static let prefix = "after:"

    public init(command: String) {
        self.command = command
    }

    public func make(afterID id: Int64) -> String {
        Data((Self.prefix + String(id)).utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    public func afterID(_ cursor: String, field: String) throws(TallyError) -> Int64 {
        var base64 = cursor.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard cursor.utf8.count <= 64, let data = Data(base64Encoded: base64),
            let text = String(data: data, encoding: .utf8), text.hasPrefix(Self.prefix),
            let id = Int64(text.dropFirst(Self.prefix.count)), id >= 0
        else {
            throw .invalidArgument(
                "cursor is not one \(command) gave out; pass next_cursor from the previous page unchanged, or leave cursor out for the first page",
                field: field)
        }
        return id
    }

    /// The page a request asks for: `limit` (`Arguments.limit`) and
    /// the id its `cursor` (one this command gave out) goes on after, 0 for the first page. Read
    /// once here for every command that pages by id.
    public func page(_ args: Arguments, size: PageSize) throws(TallyError) -> (limit: Int, afterID: Int64) {
        let limit = try args.limit(size)
        let after = try args.optionalString("cursor").map { cursor throws(TallyError) in
            try afterID(cursor, field: args.field("cursor"))
        } ?? 0
        return (limit, after)
    }

    /// The `next_cursor` after a page of `limit` rows read with `limit + 1`: after the page's last
    /// id when there were more rows, nil (absent) on the last page.
    public func next(_ ids: [Int64], limit: Int) -> String? {
        ids.count > limit ? make(afterID: ids[limit - 1]) : nil
    }
}
