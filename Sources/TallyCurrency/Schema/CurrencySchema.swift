import TallyStorage

/// The tables of the currency service's database (`currency.sqlite`).
///
/// Every row of currency data carries the `generation` of the load that wrote it. Readers only
/// look at the generation `load_state.active_generation` names, so a load writes its rows beside
/// the active set, in chunks, and a single transaction then makes them the active set and deletes
/// the old rows. A reader's snapshot sees one whole set, old or new, never a mix.
///
/// ```text
/// load_state       one row (id 1): the active set, and the load in progress with its claim
/// currency         (generation, code) -> the currency's facts, names, countries
/// currency_term    (generation, code, kind, language, term): what a search matches, folded
/// territory        (generation, region) -> the region's names
/// region_currency  (generation, region) -> the region's default currency
/// ```
///
/// Steps are append-only: a shipped step never changes, so a later change is a new step.
enum CurrencySchema {
    static let migrations: [Migration] = [
        Migration("currency-v1") { session in
            try session.create(TableSchema(
                "load_state",
                columns: [
                    ColumnSchema("id", .integer, check: "id = 1"),
                    // The set readers use; NULL until the first load completes.
                    ColumnSchema("active_generation", .integer, notNull: false),
                    ColumnSchema("active_version", .text, notNull: false),
                    ColumnSchema("active_source", .text, notNull: false),
                    ColumnSchema("active_count", .integer, notNull: false),
                    // Integer milliseconds since 1970 here and in claim_heartbeat_ms, not `.timestamp`:
                    // they are heartbeats that the loaders compare in code (`LoadState.Claim.isStale`),
                    // never in SQL, and the same in every engine keeps that code engine-neutral.
                    ColumnSchema("activated_at_ms", .integer, notNull: false),
                    // Generations are never reused, so rows of an abandoned load never pass for a new one.
                    ColumnSchema("next_generation", .integer, default: "1"),
                    // The load in progress, NULL when none: who claimed it, and how far it got.
                    ColumnSchema("claim_generation", .integer, notNull: false),
                    ColumnSchema("claim_owner", .text, notNull: false),
                    ColumnSchema("claim_pid", .integer, notNull: false),
                    ColumnSchema("claim_host", .text, notNull: false),
                    ColumnSchema("claim_version", .text, notNull: false),
                    ColumnSchema("claim_source", .text, notNull: false),
                    ColumnSchema("claim_loaded", .integer, notNull: false),
                    ColumnSchema("claim_total", .integer, notNull: false),
                    // Renewed after every chunk; a claim not renewed for a while is stale.
                    ColumnSchema("claim_heartbeat_ms", .integer, notNull: false),
                ],
                primaryKey: ["id"]))
            try session.execute("INSERT INTO load_state (id) VALUES (1)")

            try session.create(TableSchema(
                "currency",
                columns: [
                    ColumnSchema("generation", .integer),
                    ColumnSchema("code", .text),
                    ColumnSchema("numeric", .text, notNull: false),
                    ColumnSchema("minor_units", .integer),
                    ColumnSchema("iso_minor_units", .integer, notNull: false),
                    ColumnSchema("cldr_minor_units", .integer, notNull: false),
                    ColumnSchema("cash_rounding", .text, notNull: false),
                    ColumnSchema("symbol", .text),
                    ColumnSchema("narrow_symbol", .text),
                    ColumnSchema("symbols", .text),  // JSON array of strings
                    ColumnSchema("names", .text),  // JSON object: language -> name
                    ColumnSchema("iso_name", .text, notNull: false),
                    ColumnSchema("countries", .text),  // JSON array of region codes
                    // A flag, read with `NOT retired`: SQLite files have kept it as INTEGER 0/1 since
                    // this step first shipped; PostgreSQL gets a BOOLEAN.
                    ColumnSchema("retired", session.dialect == .sqlite ? .integer : .bool),
                ],
                primaryKey: ["generation", "code"], withoutRowID: true))

            try session.create(TableSchema(
                "currency_term",
                columns: [
                    ColumnSchema("generation", .integer),
                    ColumnSchema("code", .text),
                    ColumnSchema("kind", .text),  // code, symbol, name, country
                    ColumnSchema("language", .text),  // '' for codes and symbols; en, ja, zh for names
                    ColumnSchema("term", .text),  // SearchText.fold of the original
                ],
                primaryKey: ["generation", "code", "kind", "language", "term"], withoutRowID: true))

            try session.create(TableSchema(
                "territory",
                columns: [
                    ColumnSchema("generation", .integer),
                    ColumnSchema("region", .text),
                    ColumnSchema("names", .text),  // JSON object: language -> name
                ],
                primaryKey: ["generation", "region"], withoutRowID: true))

            try session.create(TableSchema(
                "region_currency",
                columns: [ColumnSchema("generation", .integer), ColumnSchema("region", .text), ColumnSchema("code", .text)],
                primaryKey: ["generation", "region"], withoutRowID: true))
        }
    ]

    /// The tables whose rows belong to a generation.
    static let dataTables = ["currency", "currency_term", "territory", "region_currency"]
}
