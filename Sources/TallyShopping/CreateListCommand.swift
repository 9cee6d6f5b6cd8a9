import GRDB
import TallyMoney
import TallyProtocol
import TallyStorage

/// `shopping.create_list`: a new template or shopping list, empty or copied from a template. A new
/// shopping list also gets, with the owner's shopping memory on, what the previous shopping list
/// left unbought.
enum CreateListCommand {
    static let keys: Set<String> = ["owner", "kind", "name", "from_template", "currency"]

    static func run(_ args: Arguments, _ context: RequestContext, _ store: ShoppingStore) throws -> StoredResult {
        try args.allowOnly(keys)
        let owner = try Owner.read(args)
        let kind = try Fields.kind(args, required: true)!
        let name = try TextField.required(args, "name", longest: ListName.longest, what: "a list name such as \"Weekly\"")
        let fromTemplate = try Fields.optionalID(args, "from_template", of: "templates")
        // Without a currency, a copy keeps its template's; otherwise the locale's region picks it.
        let givenCurrency = args.has("currency") || fromTemplate == nil ? try args.currency(locale: context.locale) : nil

        return try store.mutate(args, context, owner: owner) { db in
            let now = Timestamp.now()
            var template: ListRecord?
            if let fromTemplate {
                let found = try ListRecord.find(db, owner: owner, id: fromTemplate, field: "args.from_template")
                guard found.kind == .template else {
                    throw TallyError.invalidArgument(
                        "list \(fromTemplate) is a shopping list, not a template; from_template takes the id of one of the owner's templates",
                        field: "args.from_template")
                }
                template = found
            }
            let currency = try givenCurrency ?? template!.storedCurrency()
            var list = ListRecord(
                id: nil, owner: owner, kind: kind, name: name, currency: currency.code, fromTemplate: fromTemplate,
                openedAt: nil, createdAt: now, updatedAt: now)
            // The previous shopping list, before this one exists.
            let remembers = kind == .shopping ? try Preferences.of(db, owner: owner).shoppingMemory : false
            let previous = remembers
                ? try ListRecord.filter(ListRecord.Columns.owner == owner && ListRecord.Columns.kind == ListKind.shopping.rawValue)
                    .order(ListRecord.Columns.id.desc).fetchOne(db)
                : nil
            try list.insert(db)
            let listID = list.id!

            var items: [ItemRecord] = []
            for source in try template?.items(db) ?? [] {
                var item = ItemRecord(
                    id: nil, listID: listID, name: source.name, nameKey: source.nameKey, unit: source.unit,
                    plannedQuantity: source.plannedQuantity, purchasedQuantity: 0, purchased: false, unitPrice: nil,
                    purchasedAt: nil, createdAt: now, updatedAt: now)
                try item.insert(db)
                items.append(item)
            }
            var carried: CarriedOver?
            if let previous {
                carried = try ShoppingMemory.carry(db, from: previous, into: listID, items: &items, at: now)
            }
            try store.record(
                db,
                .listCreated(.init(
                    owner: owner, listID: listID, kind: kind, name: name, currency: currency.code,
                    fromTemplate: fromTemplate, itemCount: items.count)),
                subject: list.subject)
            if let carried {
                try store.record(
                    db, .itemsCarriedOver(.init(owner: owner, listID: listID, fromListID: carried.fromListID, items: carried.items)),
                    subject: list.subject)
            }
            return ListDetail(
                summary: try ListSummary(list, items: items), items: items.map { $0.result(currency) }, hiddenItems: 0,
                carriedOver: carried)
        }
    }
}
