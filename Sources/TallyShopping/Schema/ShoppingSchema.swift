import TallyStorage

/// The tables of the shopping service. Steps are append-only: a shipped step never changes, so a
/// later change is a new step.
enum ShoppingSchema {
    static let migrations: [Migration] = [
        Migration("shopping-v1") { session in
            // An identity id is never reused after a delete and grows in commit order, which
            // `shopping.lists` pages by and shopping memory finds "the previous list" by.
            try session.create(TableSchema(
                "shopping_list",
                columns: [
                    ColumnSchema("id", .identity),
                    ColumnSchema("owner", .text, check: "length(owner) >= 1 AND length(owner) <= 128"),
                    ColumnSchema("kind", .text, check: "kind IN ('template', 'shopping')"),
                    ColumnSchema("name", .text),
                    ColumnSchema("currency", .text, check: "length(currency) = 3"),
                    // The template the list was copied from, when it was; kept after that template is deleted.
                    ColumnSchema("from_template", .integer, notNull: false),
                    // `opened_at_ms` is the last `shopping.get_list`.
                    ColumnSchema("opened_at_ms", .timestamp, notNull: false),
                    ColumnSchema("created_at_ms", .timestamp),
                    ColumnSchema("updated_at_ms", .timestamp),
                ]))
            try session.createIndex("shopping_list_owner", on: "shopping_list", columns: ["owner", "kind"])

            try session.create(TableSchema(
                "shopping_item",
                columns: [
                    ColumnSchema("id", .identity),
                    ColumnSchema("list_id", .integer, references: ("shopping_list", cascade: true)),
                    ColumnSchema("name", .text),
                    // Trimmed, inner spaces collapsed, NFC, case-folded: what "the same item" means.
                    ColumnSchema("name_key", .text),
                    ColumnSchema("unit", .text, notNull: false),
                    ColumnSchema("planned_quantity", .integer, check: "planned_quantity >= 0"),
                    ColumnSchema("purchased_quantity", .integer, check: "purchased_quantity >= 0"),
                    ColumnSchema("purchased", .bool, default: "FALSE"),
                    // Integer minor units of the list's currency; null until a price is entered.
                    ColumnSchema("unit_price_minor", .integer, notNull: false, check: "unit_price_minor >= 0"),
                    ColumnSchema("purchased_at_ms", .timestamp, notNull: false),
                    ColumnSchema("created_at_ms", .timestamp),
                    ColumnSchema("updated_at_ms", .timestamp),
                ]))
            try session.createIndex("shopping_item_list", on: "shopping_item", columns: ["list_id"])
            // Price comparison and history: an owner's purchases of one item, newest first.
            try session.createIndex("shopping_item_purchases", on: "shopping_item", columns: ["name_key", "purchased_at_ms"])

            try session.create(TableSchema(
                "shopping_preferences",
                columns: [
                    ColumnSchema("owner", .text),
                    ColumnSchema("shopping_memory", .bool),
                    ColumnSchema("price_comparison", .bool),
                    ColumnSchema("auto_remove_purchased", .bool),
                    ColumnSchema("updated_at_ms", .timestamp),
                ],
                primaryKey: ["owner"], withoutRowID: true))
        },
        // Prices in 128-bit minor units, like every amount: a money column. SQLite cannot change a
        // column's type, so it copies the table (nothing refers to it) and carries its AUTOINCREMENT
        // counter over, so the ids of deleted items stay unused. On the TEXT column SQLite compares
        // `unit_price_minor >= 0` as text, which refuses exactly the negative numbers among the
        // decimal integers Tally writes.
        Migration("shopping-v2-money128") { session in
            switch session.dialect {
            case .postgres:
                try session.execute("ALTER TABLE shopping_item ALTER COLUMN unit_price_minor TYPE NUMERIC(39, 0)")
            case .sqlite:
                try session.execute("""
                    CREATE TABLE shopping_item_v2 (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        list_id INTEGER NOT NULL REFERENCES shopping_list(id) ON DELETE CASCADE,
                        name TEXT NOT NULL,
                        name_key TEXT NOT NULL,
                        unit TEXT,
                        planned_quantity INTEGER NOT NULL CHECK (planned_quantity >= 0),
                        purchased_quantity INTEGER NOT NULL CHECK (purchased_quantity >= 0),
                        purchased BOOLEAN NOT NULL DEFAULT FALSE,
                        unit_price_minor TEXT CHECK (unit_price_minor >= 0),
                        purchased_at_ms INTEGER,
                        created_at_ms INTEGER NOT NULL,
                        updated_at_ms INTEGER NOT NULL
                    );
                    INSERT INTO shopping_item_v2 SELECT id, list_id, name, name_key, unit, planned_quantity, purchased_quantity,
                        purchased, CAST(unit_price_minor AS TEXT), purchased_at_ms, created_at_ms, updated_at_ms FROM shopping_item;
                    DELETE FROM sqlite_sequence WHERE name = 'shopping_item_v2';
                    INSERT INTO sqlite_sequence (name, seq) SELECT 'shopping_item_v2', seq FROM sqlite_sequence WHERE name = 'shopping_item';
                    DROP TABLE shopping_item;
                    ALTER TABLE shopping_item_v2 RENAME TO shopping_item;
                    CREATE INDEX shopping_item_list ON shopping_item (list_id);
                    CREATE INDEX shopping_item_purchases ON shopping_item (name_key, purchased_at_ms);
                    """)
            }
        },
        // Every item change answers with its list's summary: its item counts and the lines that
        // count in its total. With this index they are read from the index alone, and the
        // purchased items without walking the unpurchased ones: at 500 items, about 40 µs
        // instead of 250 µs of SQLite's time on every change.
        Migration("shopping-v3-list-lines") { session in
            try session.createIndex(
                "shopping_item_list_lines", on: "shopping_item",
                columns: ["list_id", "purchased", "unit_price_minor", "purchased_quantity"])
        },
        // A list's summary kept in its row (`ListTallies`), moved by every change to its items,
        // instead of counted from them on every change: at 500 items a purchase read 500 rows
        // twice. Counted here once for the lists already stored.
        Migration("shopping-v4-list-tallies") { session in
            try session.addColumn(ColumnSchema("item_count", .integer, default: "0"), to: "shopping_list")
            try session.addColumn(ColumnSchema("purchased_count", .integer, default: "0"), to: "shopping_list")
            try session.addColumn(ColumnSchema("total_minor", .money, default: "'0'"), to: "shopping_list")
            try session.execute("""
                UPDATE shopping_list SET
                    item_count = (SELECT COUNT(*) FROM shopping_item i WHERE i.list_id = shopping_list.id),
                    purchased_count = (SELECT COUNT(*) FROM shopping_item i WHERE i.list_id = shopping_list.id AND i.purchased = TRUE)
                """)
            // Summed here, not in SQL: SQLite's arithmetic is 64 bits, and prices are 128-bit text.
            var totals: [Int64: Int128] = [:]
            for row in try session.fetchAll("""
                SELECT list_id, unit_price_minor, purchased_quantity FROM shopping_item
                WHERE purchased = TRUE AND unit_price_minor IS NOT NULL
                """) {
                let price: Int128 = try row["unit_price_minor"]
                let quantity: Int = try row["purchased_quantity"]
                let (line, lineOverflow) = price.multipliedReportingOverflow(by: Int128(quantity))
                let (total, totalOverflow) = totals[try row["list_id"], default: 0].addingReportingOverflow(line)
                guard !lineOverflow, !totalOverflow else {
                    throw StorageFailure(location: "shopping", detail: "list \(try row["list_id"] as Int64) totals past 128 bits")
                }
                totals[try row["list_id"]] = total
            }
            for (list, total) in totals {
                try session.execute("UPDATE shopping_list SET total_minor = \(total) WHERE id = \(list)")
            }
            // What v3's index served is read from the list's row now; kept, it would only cost every
            // item write one more index entry to maintain.
            try session.execute("DROP INDEX shopping_item_list_lines")
        },
    ]
}
