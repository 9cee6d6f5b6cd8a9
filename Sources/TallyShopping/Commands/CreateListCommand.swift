import TallyMoney
import TallyProtocol
import TallyStorage

/// `shopping.create_list`: a new template or shopping list, empty or copied from a template. A new
/// shopping list also gets, with the owner's shopping memory on, what the previous shopping list
/// left unbought.
enum CreateListCommand {
    static let keys: Set<String> = ["kind", "name", "from_template", "currency"]

    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: ShoppingStore) throws -> StoredResult {
        let owner = caller.userID
        try args.allowOnly(keys)
        let kind = try Fields.kind(args, required: true)!
        let name = try args.text("name", longest: ListName.longest, what: "a list name such as \"Weekly\"")
        let fromTemplate = try args.optionalID("from_template", of: "one of your templates")
        // Without a currency, a copy keeps its template's; otherwise the locale's region picks it.
        let givenCurrency = args.has("currency") || fromTemplate == nil ? try args.currency(locale: context.locale) : nil

        return try store.change(context, args, owner: owner) { change in
            let session = change.session
            var template: ListRecord?
            if let fromTemplate {
                let found = try ListRecord.find(session, owner: owner, id: fromTemplate, field: "args.from_template")
                guard found.kind == .template else {
                    throw TallyError.invalidArgument(
                        "list \(fromTemplate) is a shopping list, not a template; from_template takes the id of one of your templates",
                        field: "args.from_template")
                }
                template = found
            }
            let currency = try givenCurrency ?? template!.storedCurrency()
            // The previous shopping list, before this one exists.
            let remembers = kind == .shopping ? try Preferences.of(session, owner: owner).shoppingMemory : false
            let previous = remembers ? try ListRecord.newest(session, owner: owner, kind: .shopping) : nil
            var list = try ListRecord.insert(
                session, owner: owner, kind: kind, name: name, currency: currency.code, fromTemplate: fromTemplate, at: change.now)

            var items: [ItemRecord] = []
            for source in try template?.items(session) ?? [] {
                items.append(try ItemRecord.insert(
                    session, into: &list, name: source.name, nameKey: source.nameKey, unit: source.unit,
                    plannedQuantity: source.plannedQuantity, at: change.now))
            }
            var carried: CarriedOver?
            if let previous {
                carried = try ShoppingMemory.carry(session, from: previous, into: &list, items: &items, at: change.now)
            }
            if !items.isEmpty { try list.update(session) }
            change.record(ShoppingEvent.listCreated(.init(
                owner: owner, listID: list.id, kind: kind, name: name, currency: currency.code,
                fromTemplate: fromTemplate, itemCount: items.count)))
            if let carried {
                change.record(ShoppingEvent.itemsCarriedOver(.init(owner: owner, listID: list.id, carried: carried)))
            }
            return ListDetail(
                summary: try ListSummary(list), items: items.map { $0.result(currency) }, hiddenItems: 0,
                carriedOver: carried)
        }
    }
}
