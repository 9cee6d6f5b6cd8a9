import TallyProtocol

/// `shopping.get_preferences`: the owner's three switches; all on for an owner who never set them.
enum GetPreferencesCommand {
    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: ShoppingStore) throws -> PreferencesResult {
        let owner = caller.userID
        try args.allowOnly([])
        return try store.read { session in try Preferences.of(session, owner: owner).result }
    }
}
