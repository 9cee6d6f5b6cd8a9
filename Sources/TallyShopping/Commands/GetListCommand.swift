import TallyProtocol
import TallyStorage

/// `shopping.get_list`: opening a list, with its items and total.
///
/// Opening is recorded (`opened_at`). With the owner's auto-removal on, the items already
/// purchased when the list is opened (every purchase committed before this opening) are left out
/// of `items` unless `include_purchased` is true; they stay stored and counted in the total, and
/// `hidden_items` says how many were left out. An item bought after this opening stays in the
/// view the client holds until it opens the list again.
///
/// Recording the opening is the one write this query makes. It changes no domain state (no event,
/// `updated_at` unchanged), so running it twice is harmless and the catalog calls it a query.
enum GetListCommand {
    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: ShoppingStore) throws -> ListDetail {
        let owner = caller.userID
        try args.allowOnly(["list_id", "include_purchased"])
        let id = try args.id("list_id", of: "one of your lists")
        let includePurchased = try args.optionalBool("include_purchased") ?? false
        // Straight through the engine, not `ServiceStore.change`: no event, no idempotency key.
        return try store.store.engine.write { session in
            var list = try ListRecord.find(session, owner: owner, id: id)
            let hide = includePurchased ? false : try Preferences.of(session, owner: owner).autoRemovePurchased
            list.openedAt = Timestamp.now()
            try session.execute("UPDATE shopping_list SET opened_at_ms = \(timestamp: list.openedAt) WHERE id = \(id)")
            let items = try list.items(session)
            let currency = try list.storedCurrency()
            let shown = hide ? items.filter { !$0.purchased } : items
            return ListDetail(
                summary: try ListSummary(list), items: shown.map { $0.result(currency) },
                hiddenItems: items.count - shown.count, carriedOver: nil)
        }
    }
}
