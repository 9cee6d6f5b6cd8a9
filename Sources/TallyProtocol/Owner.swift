/// Whose data a per-owner command (accounts, shopping, alerts) reads and changes: the signed-in
/// caller's, always. The owner is the caller's user id, from the token the authentication
/// middleware verified; a client can no longer name one in `args`.
public enum Owner {
    /// The caller's user id, which the command's data is kept under. A request that still sends
    /// `owner` (as clients did before sign-in existed) is refused with a message that says what
    /// changed, before any other check of the args, so a client being migrated learns it first.
    public static func caller(_ args: Arguments, _ context: RequestContext) throws(TallyError) -> String {
        if args.values["owner"] != nil {
            throw .invalidArgument(
                "owner is no longer an argument: \(context.command) acts on the signed-in caller's own data, the user of the envelope's token; remove owner, and send the token of the person whose data it is (identity.login gives one; tally login stores one for tally call)",
                field: args.field("owner"))
        }
        return try context.requireCaller().userID
    }
}
