/// Every command Tally defines, as data: which service serves it and whether it only reads.
///
/// The gateway uses it to tell an unknown service (`unimplemented`) from one whose workers have
/// not arrived yet, and to know which requests it may safely send to a second worker when the
/// first one dies. The contract test checks it against `schemas/` and `docs/protocol.md`.
public enum CommandCatalog {
    public enum Kind: Sendable {
        /// Reads or computes only: running it twice is harmless.
        case query
        /// Changes state: only re-run when the client supplied an `idempotency_key`.
        case mutation
    }

    public struct Command: Sendable {
        public let name: String
        public let kind: Kind
        public let summary: String
    }

    public static let commands: [Command] = [
        Command(name: "calc.tip", kind: .query, summary: "Tip, total and per-person shares of a bill."),
        Command(name: "calc.tip_table", kind: .query, summary: "Tip and total at every whole percentage from 0 to 50."),
        Command(name: "calc.split", kind: .query, summary: "Split a bill with tax and tip, equally or by items, shares, amounts or percents."),
        Command(name: "calc.adjust", kind: .query, summary: "Change one person's share and rebalance the others."),
        Command(name: "accounts.create", kind: .mutation, summary: "Add a budget account for an owner."),
        Command(name: "accounts.list", kind: .query, summary: "An owner's accounts, a page at a time."),
        Command(name: "accounts.get", kind: .query, summary: "One of an owner's accounts."),
        Command(name: "accounts.update", kind: .mutation, summary: "Change an account's name, currency, starting balance or default flag."),
        Command(name: "accounts.delete", kind: .mutation, summary: "Remove one of an owner's accounts."),
        Command(name: "accounts.set_default", kind: .mutation, summary: "Make one account the owner's default."),
        Command(name: "accounts.strings", kind: .query, summary: "The add-account screens' word list in English, Japanese or Chinese."),
        Command(name: "accounts.events", kind: .query, summary: "The accounts outbox after a sequence, for subscribers that missed an event."),
        Command(name: "currency.search", kind: .query, summary: "Find currencies by country, name, code or symbol, ranked and paged."),
        Command(name: "currency.get", kind: .query, summary: "One currency by its ISO 4217 code, retired ones included."),
        Command(name: "currency.default_for_locale", kind: .query, summary: "The currency of a locale's region."),
        Command(name: "currency.status", kind: .query, summary: "Whether the currency data is loaded, or how far loading has got."),
        Command(name: "shopping.create_list", kind: .mutation, summary: "A new template or shopping list, empty or copied from a template, with shopping memory."),
        Command(name: "shopping.get_list", kind: .query, summary: "Open a list: its items and total, purchased items hidden by auto-removal."),
        Command(name: "shopping.lists", kind: .query, summary: "An owner's lists with their totals, a page at a time."),
        Command(name: "shopping.rename_list", kind: .mutation, summary: "Give a list a new name."),
        Command(name: "shopping.delete_list", kind: .mutation, summary: "Remove a list and its items."),
        Command(name: "shopping.add_item", kind: .mutation, summary: "Add an item to a list."),
        Command(name: "shopping.update_item", kind: .mutation, summary: "Change an item's name, unit or quantities."),
        Command(name: "shopping.remove_item", kind: .mutation, summary: "Take an item off a list."),
        Command(name: "shopping.mark_purchased", kind: .mutation, summary: "Mark an item bought, with its price and quantity, compared with the last price paid."),
        Command(name: "shopping.mark_unpurchased", kind: .mutation, summary: "Mark an item not bought after all."),
        Command(name: "shopping.set_price", kind: .mutation, summary: "Set an item's unit price, compared with the last price paid."),
        Command(name: "shopping.get_preferences", kind: .query, summary: "An owner's shopping memory, price comparison and auto-removal switches."),
        Command(name: "shopping.set_preferences", kind: .mutation, summary: "Turn shopping memory, price comparison or auto-removal on or off."),
        Command(name: "shopping.price_history", kind: .query, summary: "What an owner paid for an item, newest first."),
        Command(name: "shopping.events", kind: .query, summary: "The shopping service's domain events after a sequence number, oldest first."),
        Command(name: "alerts.list", kind: .query, summary: "Stored alerts after a sequence, by kind or owner, a page at a time."),
        Command(name: "system.ping", kind: .query, summary: "Liveness of the gateway."),
        Command(name: "system.services", kind: .query, summary: "Each service with its workers, queue and counters."),
        Command(name: "mmi.service", kind: .query, summary: "8/MMI: whether a service has a live worker."),
    ]

    /// Services answered by the gateway itself, never by a worker.
    public static let gatewayServices: Set<String> = ["system", "mmi"]

    /// Services Tally's own workers provide; a request for one waits for a worker to appear.
    public static let workerServices: Set<String> = Set(
        commands.map { String(Envelope.service(of: $0.name)) }).subtracting(gatewayServices)

    private static let byName = Dictionary(uniqueKeysWithValues: commands.map { ($0.name, $0) })

    public static func command(named name: String) -> Command? { byName[name] }

    /// Whether a request may run on a second worker after the first died holding it.
    public static func isSafeToRetry(command: String, idempotencyKey: String?) -> Bool {
        idempotencyKey != nil || byName[command]?.kind == .query
    }
}
