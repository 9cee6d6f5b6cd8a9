import GRDB

/// The tables of `currency.sqlite`.
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
enum CurrencySchema {
    static func register(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("currency-v1") { db in
            try db.execute(sql: """
                CREATE TABLE load_state (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    -- The set readers use; NULL until the first load completes.
                    active_generation INTEGER,
                    active_version TEXT,
                    active_source TEXT,
                    active_count INTEGER,
                    activated_at_ms INTEGER,
                    -- Generations are never reused, so rows of an abandoned load never pass for a new one.
                    next_generation INTEGER NOT NULL DEFAULT 1,
                    -- The load in progress, NULL when none: who claimed it, and how far it got.
                    claim_generation INTEGER,
                    claim_owner TEXT,
                    claim_pid INTEGER,
                    claim_host TEXT,
                    claim_version TEXT,
                    claim_source TEXT,
                    claim_loaded INTEGER,
                    claim_total INTEGER,
                    -- Renewed after every chunk; a claim not renewed for a while is stale.
                    claim_heartbeat_ms INTEGER
                );
                INSERT INTO load_state (id) VALUES (1);

                CREATE TABLE currency (
                    generation INTEGER NOT NULL,
                    code TEXT NOT NULL,
                    numeric TEXT,
                    minor_units INTEGER NOT NULL,
                    iso_minor_units INTEGER,
                    cldr_minor_units INTEGER,
                    cash_rounding TEXT,
                    symbol TEXT NOT NULL,
                    narrow_symbol TEXT NOT NULL,
                    symbols TEXT NOT NULL,   -- JSON array of strings
                    names TEXT NOT NULL,     -- JSON object: language -> name
                    iso_name TEXT,
                    countries TEXT NOT NULL, -- JSON array of region codes
                    retired INTEGER NOT NULL,
                    PRIMARY KEY (generation, code)
                ) WITHOUT ROWID;

                CREATE TABLE currency_term (
                    generation INTEGER NOT NULL,
                    code TEXT NOT NULL,
                    kind TEXT NOT NULL,      -- code, symbol, name, country
                    language TEXT NOT NULL,  -- '' for codes and symbols; en, ja, zh for names
                    term TEXT NOT NULL,      -- SearchText.fold of the original
                    PRIMARY KEY (generation, code, kind, language, term)
                ) WITHOUT ROWID;

                CREATE TABLE territory (
                    generation INTEGER NOT NULL,
                    region TEXT NOT NULL,
                    names TEXT NOT NULL,     -- JSON object: language -> name
                    PRIMARY KEY (generation, region)
                ) WITHOUT ROWID;

                CREATE TABLE region_currency (
                    generation INTEGER NOT NULL,
                    region TEXT NOT NULL,
                    code TEXT NOT NULL,
                    PRIMARY KEY (generation, region)
                ) WITHOUT ROWID;
                """)
        }
    }

    /// The tables whose rows belong to a generation.
    static let dataTables = ["currency", "currency_term", "territory", "region_currency"]
}
