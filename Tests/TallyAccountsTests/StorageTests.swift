import Foundation
import TallyProtocol
@testable import TallyAccounts
import TallyMoney
import TallyStorage
import Testing

/// What is kept on disk, and how values go in and out of it.
@Suite struct StorageTests {
    @Test func balancesAreStoredAsExactIntegerMinorUnits() throws {
        let harness = try AccountsHarness(kind: .sqlite)
        try harness.create("Card", balance: "-80.50")
        try harness.create("Dinar", balance: "1.25", currency: "BHD")
        try harness.create("Hyper", balance: "100000000000000000000", currency: "USD")
        let stored = try harness.store.read {
            try $0.fetchAll("SELECT starting_balance_minor, typeof(starting_balance_minor) AS type FROM account ORDER BY id")
        }
        #expect(try stored.map { try $0["starting_balance_minor"] as Int128 } == [-8050, 1250, 10_000_000_000_000_000_000_000])
        // SQLite's INTEGER has 64 bits, and its integer affinity would turn a larger number into a
        // lossy REAL: money is decimal text there.
        #expect(try stored.map { try $0["type"] as String } == ["text", "text", "text"])
    }

    /// The seed sizes the balance field (22 characters) for the 10^20 banknote; 64-bit minor
    /// units stopped at 92,233,720,368,547,758.07 USD.
    @Test func balancesAsLargeAsTheFieldHoldsRoundTripExactly() throws {
        let harness = try AccountsHarness()
        let edges: [(String, String, String)] = [
            ("past 64 bits", "92233720368547758.08", "USD"),
            ("largest", "9999999999999999999999", "JPY"),
            ("most negative", "-999999999999999999999", "JPY"),
            ("22 characters with cents", "9999999999999999999.99", "USD"),
            ("22 characters of fils", "-99999999999999999.999", "BHD"),
        ]
        for (index, (name, balance, currency)) in edges.enumerated() {
            let created = try harness.create("Edge \(index)", balance: balance, currency: currency)
            #expect(created["starting_balance"]?.stringValue == balance, "\(name)")
            #expect(try harness.call("accounts.get", ["id": created.id])["starting_balance"]?.stringValue == balance)
        }
        // 23 characters is past the field, however small the number.
        #expect(harness.error("accounts.create", ["name": "Long", "starting_balance": "0.000000000000000000001", "currency": "USD"])?.field == "args.starting_balance")
        // A yen balance that size still moves to dinars, three places more.
        let yen = try harness.create("Yen", balance: "9999999999999999999999", currency: "JPY")
        let dinars = try harness.call("accounts.update", ["id": yen.id, "currency": "BHD"])
        #expect(dinars["starting_balance"] == "9999999999999999999999.000")
    }

    @Test func theDatabaseIsOneFileThatSurvivesReopening() throws {
        let harness = try AccountsHarness(kind: .sqlite)
        let wallet = try harness.create("Wallet", isDefault: true)
        #expect(FileManager.default.fileExists(atPath: harness.directory + "/accounts.sqlite"))
        let reopened = try harness.secondService()
        #expect(try AccountsHarness.call(reopened, "accounts.get", ["id": 1]) == wallet)
    }

    @Test func rescalingKeepsTheDecimalValueOrRefuses() throws {
        let usd = try #require(Currency.lookup("USD")), jpy = try #require(Currency.lookup("JPY")), bhd = try #require(Currency.lookup("BHD"))
        #expect(StartingBalance.rescale(1200, from: usd, to: jpy) == 12)
        #expect(StartingBalance.rescale(-1250, from: usd, to: bhd) == -12500)
        #expect(StartingBalance.rescale(1250, from: usd, to: jpy) == nil)
        #expect(StartingBalance.rescale(Int128(Int64.max), from: jpy, to: usd) == Int128(Int64.max) * 100, "past 64 bits")
        #expect(StartingBalance.rescale(Int128.max, from: jpy, to: usd) == nil)
        #expect(StartingBalance.rescale(-Int128.max, from: jpy, to: usd) == nil)
    }

    /// An `accounts.sqlite` as the release before the storage seam left it (GRDB's DDL and step
    /// names, 64-bit integer balances), with the newest account deleted.
    static let olderRelease: SQL = """
        CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
        INSERT INTO grdb_migrations VALUES ('accounts-v1'), ('idempotency-keys'), ('localized-strings-v1'), ('event-outbox');
        CREATE TABLE "account" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "owner" TEXT NOT NULL CHECK ((LENGTH("owner") >= 1) AND (LENGTH("owner") <= 128)), "name" TEXT NOT NULL, "name_key" TEXT NOT NULL, "currency" TEXT NOT NULL CHECK (LENGTH("currency") = 3), "starting_balance_minor" INTEGER NOT NULL, "is_default" BOOLEAN NOT NULL DEFAULT 0, "created_at_ms" INTEGER NOT NULL, "updated_at_ms" INTEGER NOT NULL);
        CREATE UNIQUE INDEX "account_owner_name" ON "account"("owner", "name_key");
        CREATE UNIQUE INDEX "account_owner_default" ON "account"("owner") WHERE "is_default";
        CREATE INDEX "account_owner" ON "account"("owner");
        CREATE TABLE "idempotency_key" ("key" TEXT NOT NULL, "scope" TEXT NOT NULL, "fingerprint" TEXT NOT NULL, "result" BLOB NOT NULL, "created_at" INTEGER NOT NULL, PRIMARY KEY ("scope", "key"));
        CREATE INDEX "idempotency_key_created_at" ON "idempotency_key"("created_at");
        CREATE TABLE "localized_string" ("language" TEXT NOT NULL, "key" TEXT NOT NULL, "text" TEXT NOT NULL, PRIMARY KEY ("language", "key")) WITHOUT ROWID;
        INSERT INTO localized_string VALUES ('en', 'ERRORLABEL_NAME_CURRENCY_NOT_EMPTY', 'Please enter both an account name and a starting balance.');
        CREATE TABLE event (sequence INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, type TEXT NOT NULL, subject TEXT, time TEXT NOT NULL, data BLOB NOT NULL);
        INSERT INTO account VALUES (1, 'ann', 'Wallet', 'wallet', 'USD', 125050, 1, 1795440415000, 1795440415000);
        INSERT INTO account VALUES (2, 'ann', 'Card', 'card', 'USD', -8050, 0, 1795440416000, 1795440416000);
        DELETE FROM account WHERE id = 2;
        INSERT INTO event VALUES (1, '0a141459-a867-4c7d-b237-cef8072c5277', 'accounts.account_created', 'ann', '2026-11-23T13:26:55.000Z', '{"id":1}');
        """

    @Test func aFileAnOlderReleaseWroteIsUpgradedInPlace() throws {
        let harness = try AccountsHarness(kind: .sqlite, prepare: { engine in _ = try engine.write { try $0.execute(Self.olderRelease) } })
        let steps = try harness.store.read { try Migrator.applied($0) }
        #expect(steps == ["accounts-v1", "accounts-v2-money128", "event-counter", "event-epoch", "event-outbox", "event-request-id", "event-traceparent", "idempotency-keys", "localized-strings-v1"])
        let wallet = try harness.call("accounts.get", ["id": 1])
        #expect(wallet["starting_balance"] == "1250.50")
        #expect(wallet["is_default"] == true)
        // The deleted account's id is not given out again, and events go on from where they were.
        let bank = try harness.create("Bank", balance: "100000000000000000000")
        #expect(bank["id"] == 3)
        #expect(try harness.store.events(after: 0, limit: 10).map(\.sequence) == [1, 2])
        #expect(harness.error("accounts.create", ["name": "wallet", "starting_balance": "1", "currency": "USD"])?.code == .alreadyExists)
    }
}
