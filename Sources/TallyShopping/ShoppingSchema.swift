import GRDB
import TallyStorage

/// The tables of `shopping.sqlite`. Migrations are append-only: a shipped migration never
/// changes, so a later change is a new migration.
enum ShoppingSchema {
    static func register(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("shopping-v1") { db in
            // AUTOINCREMENT: ids are never reused after a delete and grow in commit order, which
            // `shopping.lists` pages by and shopping memory finds "the previous list" by.
            try db.create(table: "shopping_list") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("owner", .text).notNull().check { length($0) >= 1 && length($0) <= 128 }
                table.column("kind", .text).notNull().check { ["template", "shopping"].contains($0) }
                table.column("name", .text).notNull()
                table.column("currency", .text).notNull().check { length($0) == 3 }
                // The template the list was copied from, when it was; kept after that template is deleted.
                table.column("from_template", .integer)
                // Milliseconds since 1970 (UTC). `opened_at_ms` is the last `shopping.get_list`.
                table.column("opened_at_ms", .integer)
                table.column("created_at_ms", .integer).notNull()
                table.column("updated_at_ms", .integer).notNull()
            }
            try db.create(index: "shopping_list_owner", on: "shopping_list", columns: ["owner", "kind"])

            try db.create(table: "shopping_item") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("list_id", .integer).notNull().references("shopping_list", onDelete: .cascade)
                table.column("name", .text).notNull()
                // Trimmed, inner spaces collapsed, NFC, case-folded: what "the same item" means.
                table.column("name_key", .text).notNull()
                table.column("unit", .text)
                table.column("planned_quantity", .integer).notNull().check { $0 >= 0 }
                table.column("purchased_quantity", .integer).notNull().check { $0 >= 0 }
                table.column("purchased", .boolean).notNull().defaults(to: false)
                // Integer minor units of the list's currency; null until a price is entered.
                table.column("unit_price_minor", .integer).check { $0 >= 0 }
                table.column("purchased_at_ms", .integer)
                table.column("created_at_ms", .integer).notNull()
                table.column("updated_at_ms", .integer).notNull()
            }
            try db.create(index: "shopping_item_list", on: "shopping_item", columns: ["list_id"])
            // Price comparison and history: an owner's purchases of one item, newest first.
            try db.create(index: "shopping_item_purchases", on: "shopping_item", columns: ["name_key", "purchased_at_ms"])

            try db.create(table: "shopping_preferences", options: .withoutRowID) { table in
                table.column("owner", .text).notNull().primaryKey()
                table.column("shopping_memory", .boolean).notNull()
                table.column("price_comparison", .boolean).notNull()
                table.column("auto_remove_purchased", .boolean).notNull()
                table.column("updated_at_ms", .integer).notNull()
            }
        }
        IdempotentWrites.registerMigration(&migrator)
        EventLog.registerMigration(&migrator)
    }
}
