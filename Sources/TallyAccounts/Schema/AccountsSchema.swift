import TallyStorage

/// The tables of the accounts service. Steps are append-only: a shipped step never changes, so a
/// later change (a new column, a reworded string) is a new step.
enum AccountsSchema {
    static let migrations: [Migration] = [
        Migration("accounts-v1") { session in
            // An identity id is never reused after a delete, so a stale id cannot reach someone's
            // newer account. Ids also grow in commit order, which `accounts.list` pages by.
            try session.create(TableSchema(
                "account",
                columns: [
                    ColumnSchema("id", .identity),
                    ColumnSchema("owner", .text, check: "length(owner) >= 1 AND length(owner) <= 128"),
                    ColumnSchema("name", .text),
                    // The name trimmed, NFC-normalised and case-folded: what duplicates are found by.
                    ColumnSchema("name_key", .text),
                    ColumnSchema("currency", .text, check: "length(currency) = 3"),
                    // Integer minor units of `currency` (cents, yen, fils); negative for a debt.
                    ColumnSchema("starting_balance_minor", .integer),
                    ColumnSchema("is_default", .bool, default: "FALSE"),
                    ColumnSchema("created_at_ms", .timestamp),
                    ColumnSchema("updated_at_ms", .timestamp),
                ]))
            // One name per owner, compared trimmed and case-insensitively.
            try session.createIndex("account_owner_name", on: "account", columns: ["owner", "name_key"], unique: true)
            // At most one default account per owner, whatever the code above it does.
            try session.createIndex("account_owner_default", on: "account", columns: ["owner"], unique: true, where: "is_default")
            // Listing an owner's accounts in id order.
            try session.createIndex("account_owner", on: "account", columns: ["owner"])
        },
        Migration("localized-strings-v1") { session in
            try session.create(TableSchema(
                "localized_string",
                columns: [ColumnSchema("language", .text), ColumnSchema("key", .text), ColumnSchema("text", .text)],
                primaryKey: ["language", "key"], withoutRowID: true))
            for (language, strings) in WordList.seed {
                for (key, text) in strings {
                    try session.execute("INSERT INTO localized_string (language, key, text) VALUES (\(language.rawValue), \(key), \(text))")
                }
            }
        },
        // Balances in 128-bit minor units (the seed sizes the field for 10^20 banknotes): a money
        // column. SQLite cannot change a column's type, so it copies the table.
        Migration("accounts-v2-money128") { session in
            switch session.dialect {
            case .postgres:
                try session.execute("ALTER TABLE account ALTER COLUMN starting_balance_minor TYPE NUMERIC(39, 0)")
            case .sqlite:
                try session.execute("""
                    CREATE TABLE account_v2 (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        owner TEXT NOT NULL CHECK (length(owner) >= 1 AND length(owner) <= 128),
                        name TEXT NOT NULL,
                        name_key TEXT NOT NULL,
                        currency TEXT NOT NULL CHECK (length(currency) = 3),
                        starting_balance_minor TEXT NOT NULL,
                        is_default BOOLEAN NOT NULL DEFAULT FALSE,
                        created_at_ms INTEGER NOT NULL,
                        updated_at_ms INTEGER NOT NULL
                    );
                    INSERT INTO account_v2 SELECT id, owner, name, name_key, currency, CAST(starting_balance_minor AS TEXT),
                        is_default, created_at_ms, updated_at_ms FROM account;
                    -- Carry the id counter over, so the ids of deleted accounts are never given out again.
                    DELETE FROM sqlite_sequence WHERE name = 'account_v2';
                    INSERT INTO sqlite_sequence (name, seq) SELECT 'account_v2', seq FROM sqlite_sequence WHERE name = 'account';
                    DROP TABLE account;
                    ALTER TABLE account_v2 RENAME TO account;
                    CREATE UNIQUE INDEX account_owner_name ON account (owner, name_key);
                    CREATE UNIQUE INDEX account_owner_default ON account (owner) WHERE is_default;
                    CREATE INDEX account_owner ON account (owner);
                    """)
            }
        },
    ]
}
