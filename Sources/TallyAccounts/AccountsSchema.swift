import GRDB
import TallyStorage

/// The tables of `accounts.sqlite`. Migrations are append-only: a shipped migration never
/// changes, so a later change (a new column, a reworded string) is a new migration.
enum AccountsSchema {
    static func register(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("accounts-v1") { db in
            // AUTOINCREMENT: an id is never reused after a delete, so a stale id cannot reach
            // someone's newer account. Ids also grow in commit order, which `accounts.list` pages by.
            try db.create(table: "account") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("owner", .text).notNull().check { length($0) >= 1 && length($0) <= 128 }
                table.column("name", .text).notNull()
                // The name trimmed, NFC-normalised and case-folded: what duplicates are found by.
                table.column("name_key", .text).notNull()
                table.column("currency", .text).notNull().check { length($0) == 3 }
                // Integer minor units of `currency` (cents, yen, fils); negative for a debt.
                table.column("starting_balance_minor", .integer).notNull()
                table.column("is_default", .boolean).notNull().defaults(to: false)
                // Milliseconds since 1970 (UTC).
                table.column("created_at_ms", .integer).notNull()
                table.column("updated_at_ms", .integer).notNull()
            }
            // One name per owner, compared trimmed and case-insensitively.
            try db.create(index: "account_owner_name", on: "account", columns: ["owner", "name_key"], options: .unique)
            // At most one default account per owner, whatever the code above it does.
            try db.create(
                index: "account_owner_default", on: "account", columns: ["owner"], options: .unique,
                condition: Column("is_default"))
            // Listing an owner's accounts in id order (the index holds the rowid after `owner`).
            try db.create(index: "account_owner", on: "account", columns: ["owner"])
        }
        IdempotentWrites.registerMigration(&migrator)
        migrator.registerMigration("localized-strings-v1") { db in
            try db.create(table: "localized_string", options: .withoutRowID) { table in
                table.column("language", .text).notNull()
                table.column("key", .text).notNull()
                table.column("text", .text).notNull()
                table.primaryKey(["language", "key"])
            }
            for (language, strings) in WordList.seed {
                for (key, text) in strings {
                    try db.execute(
                        sql: "INSERT INTO localized_string (language, key, text) VALUES (?, ?, ?)",
                        arguments: [language.rawValue, key, text])
                }
            }
        }
        // The transactional outbox of accounts events (accounts.events).
        EventLog.registerMigration(&migrator)
    }
}
