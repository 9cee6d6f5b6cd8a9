/// The `owner` that per-owner commands (accounts, shopping, alerts) are scoped to: until
/// authentication arrives, whoever the caller says it acts for.
public enum Owner {
    public static let longestBytes = 128

    public static func read(_ args: Arguments) throws(TallyError) -> String {
        let owner = try args.string("owner", example: "an owner id such as \"ann\"")
        guard !owner.isEmpty, owner.utf8.count <= longestBytes else {
            throw .invalidArgument("owner must be 1 to \(longestBytes) bytes long", field: args.field("owner"))
        }
        guard let first = owner.unicodeScalars.first, let last = owner.unicodeScalars.last,
            !first.properties.isWhitespace, !last.properties.isWhitespace
        else {
            throw .invalidArgument("owner must not start or end with whitespace", field: args.field("owner"))
        }
        return owner
    }
}
