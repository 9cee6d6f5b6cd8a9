/// How many items a page of a listing command holds: `limit` when the request gives it (1 to
/// `largest`), `default` when it does not. Each listing names its own in one line, since its
/// schema documents the pair; `Arguments.limit(_:)` reads it the same way for all.
public struct PageSize: Sendable {
    public let `default`: Int
    public let largest: Int

    public init(default: Int, largest: Int) {
        precondition(1 <= `default` && `default` <= largest, "a page's default size lies within 1...largest")
        self.default = `default`
        self.largest = largest
    }
}

extension Arguments {
    /// `limit`, the size of the page asked for: a whole number from 1 to `size.largest`,
    /// `size.default` when absent or null.
    public func limit(_ size: PageSize) throws(TallyError) -> Int {
        try optionalInteger("limit", in: 1...size.largest) ?? size.default
    }
}
