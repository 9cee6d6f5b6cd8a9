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
}
