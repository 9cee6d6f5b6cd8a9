import TallyStorage

/// An owner's switches (one row of `shopping_preferences`); an owner who never set them has the
/// defaults, all on, and no row.
struct Preferences: Equatable, Sendable {
    var owner: String
    var shoppingMemory = true
    var priceComparison = true
    var autoRemovePurchased = true
    /// Milliseconds since 1970, UTC; 0 until first set.
    var updatedAt: Int64 = 0

    init(owner: String) {
        self.owner = owner
    }

    init(row: SQLRow) throws {
        owner = try row["owner"]
        shoppingMemory = try row["shopping_memory"]
        priceComparison = try row["price_comparison"]
        autoRemovePurchased = try row["auto_remove_purchased"]
        updatedAt = try row["updated_at_ms"]
    }

    static func of(_ session: any SQLSession, owner: String) throws -> Preferences {
        try session.fetchOne("""
            SELECT owner, shopping_memory, price_comparison, auto_remove_purchased, updated_at_ms
            FROM shopping_preferences WHERE owner = \(owner)
            """).map(Preferences.init(row:)) ?? Preferences(owner: owner)
    }

    /// Stores the switches, the owner's first row or over the one there is.
    func save(_ session: any SQLSession) throws {
        try session.execute("""
            INSERT INTO shopping_preferences (owner, shopping_memory, price_comparison, auto_remove_purchased, updated_at_ms)
            VALUES (\(owner), \(shoppingMemory), \(priceComparison), \(autoRemovePurchased), \(timestamp: updatedAt))
            ON CONFLICT (owner) DO UPDATE SET shopping_memory = excluded.shopping_memory,
                price_comparison = excluded.price_comparison, auto_remove_purchased = excluded.auto_remove_purchased,
                updated_at_ms = excluded.updated_at_ms
            """)
    }

    var result: PreferencesResult {
        PreferencesResult(
            owner: owner, shoppingMemory: shoppingMemory, priceComparison: priceComparison, autoRemovePurchased: autoRemovePurchased)
    }
}
