import TallyProtocol
import TallyStorage

/// `shopping.set_preferences`: turns any of the owner's switches on or off; the others keep
/// their values. A change that changes nothing records no event.
enum SetPreferencesCommand {
    static let switches = ["auto_remove_purchased", "price_comparison", "shopping_memory"]

    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: ShoppingStore) throws -> StoredResult {
        let owner = caller.userID
        try args.allowOnly(Set(switches))
        try args.requireAny(of: switches, for: "shopping.set_preferences", to: "set")
        let memory = try args.optionalBool("shopping_memory")
        let comparison = try args.optionalBool("price_comparison")
        let autoRemove = try args.optionalBool("auto_remove_purchased")
        return try store.change(context, args, owner: owner) { change in
            let original = try Preferences.of(change.session, owner: owner)
            var preferences = original
            if let memory { preferences.shoppingMemory = memory }
            if let comparison { preferences.priceComparison = comparison }
            if let autoRemove { preferences.autoRemovePurchased = autoRemove }
            var changed: [String] = []
            if original.autoRemovePurchased != preferences.autoRemovePurchased { changed.append("auto_remove_purchased") }
            if original.priceComparison != preferences.priceComparison { changed.append("price_comparison") }
            if original.shoppingMemory != preferences.shoppingMemory { changed.append("shopping_memory") }
            if !changed.isEmpty {
                preferences.updatedAt = change.now
                try preferences.save(change.session)
                change.record(ShoppingEvent.preferencesChanged(.init(preferences: preferences.result, changed: changed)))
            }
            return preferences.result
        }
    }
}
