import Foundation
import TallyProtocol
import TallyStorage
import Testing

/// What is kept on disk, how prices go in and out of it, and files an older release wrote.
@Suite struct StorageTests {
    @Test func pricesRoundTripExactlyAsTextMinorUnits() throws {
        let harness = try ShoppingHarness(kind: .sqlite)
        for edge in MoneyTests.edges {
            let list = try harness.list(edge.currency, currency: edge.currency)
            try harness.buy(list, try harness.item(list, "Gold"), price: edge.largest)
        }
        let stored = try harness.store.read {
            try $0.fetchAll("SELECT unit_price_minor, typeof(unit_price_minor) AS type FROM shopping_item ORDER BY id")
        }
        #expect(try stored.map { try $0["unit_price_minor"] as Int128 } == [999_999_999_999, 99_999_999_999_999, 999_999_999_999_999, 9_999_999_999_999_999])
        // SQLite's INTEGER has 64 bits, and its integer affinity would turn a larger number into a
        // lossy REAL: money is decimal text there.
        #expect(try stored.map { try $0["type"] as String } == ["text", "text", "text", "text"])
        // And back out exactly: in the lists' totals and in the price history.
        let lists = try #require(try harness.call("shopping.lists", [:])["lists"]?.arrayValue)
        #expect(lists.map { $0["total"]?.stringValue } == MoneyTests.edges.map(\.largest))
        let history = try #require(try harness.call("shopping.price_history", ["name": "gold"])["purchases"]?.arrayValue)
        #expect(Set(history.compactMap { $0["price"]?.stringValue }) == Set(MoneyTests.edges.map(\.largest)))
        #expect(history.count == 4)
    }

    @Test func aStoredPriceIsNeverNegative() throws {
        let harness = try ShoppingHarness()
        let list = try harness.list("Saturday")
        try harness.buy(list, try harness.item(list, "Milk"), price: "1.19")
        #expect(throws: (any Error).self, "the column's check refuses it, even behind the service's back") {
            try harness.execute("UPDATE shopping_item SET unit_price_minor = \(-1 as Int128)")
        }
        try harness.execute("UPDATE shopping_item SET unit_price_minor = \(0 as Int128)")
        #expect(try harness.store.read { try $0.fetchValue("SELECT unit_price_minor FROM shopping_item", as: Int128.self) } == 0)
    }

    /// A `shopping.sqlite` as the release before the storage seam left it (GRDB's DDL and step
    /// names, integer prices), with two lists, items, an event and an idempotency key, and the
    /// newest item deleted.
    static let olderRelease: SQL = """
        CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
        INSERT INTO grdb_migrations VALUES ('shopping-v1'), ('idempotency-keys'), ('event-outbox');
        CREATE TABLE "shopping_list" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "owner" TEXT NOT NULL CHECK ((LENGTH("owner") >= 1) AND (LENGTH("owner") <= 128)), "kind" TEXT NOT NULL CHECK ("kind" IN ('template', 'shopping')), "name" TEXT NOT NULL, "currency" TEXT NOT NULL CHECK (LENGTH("currency") = 3), "from_template" INTEGER, "opened_at_ms" INTEGER, "created_at_ms" INTEGER NOT NULL, "updated_at_ms" INTEGER NOT NULL);
        CREATE INDEX "shopping_list_owner" ON "shopping_list"("owner", "kind");
        CREATE TABLE "shopping_item" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "list_id" INTEGER NOT NULL REFERENCES "shopping_list"("id") ON DELETE CASCADE, "name" TEXT NOT NULL, "name_key" TEXT NOT NULL, "unit" TEXT, "planned_quantity" INTEGER NOT NULL CHECK ("planned_quantity" >= 0), "purchased_quantity" INTEGER NOT NULL CHECK ("purchased_quantity" >= 0), "purchased" BOOLEAN NOT NULL DEFAULT 0, "unit_price_minor" INTEGER CHECK ("unit_price_minor" >= 0), "purchased_at_ms" INTEGER, "created_at_ms" INTEGER NOT NULL, "updated_at_ms" INTEGER NOT NULL);
        CREATE INDEX "shopping_item_list" ON "shopping_item"("list_id");
        CREATE INDEX "shopping_item_purchases" ON "shopping_item"("name_key", "purchased_at_ms");
        CREATE TABLE "shopping_preferences" ("owner" TEXT PRIMARY KEY NOT NULL, "shopping_memory" BOOLEAN NOT NULL, "price_comparison" BOOLEAN NOT NULL, "auto_remove_purchased" BOOLEAN NOT NULL, "updated_at_ms" INTEGER NOT NULL) WITHOUT ROWID;
        CREATE TABLE "idempotency_key" ("key" TEXT NOT NULL, "scope" TEXT NOT NULL, "fingerprint" TEXT NOT NULL, "result" BLOB NOT NULL, "created_at" INTEGER NOT NULL, PRIMARY KEY ("scope", "key"));
        CREATE INDEX "idempotency_key_created_at" ON "idempotency_key"("created_at");
        CREATE TABLE event (sequence INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, type TEXT NOT NULL, subject TEXT, time TEXT NOT NULL, data BLOB NOT NULL);
        INSERT INTO shopping_list VALUES (1, 'ann', 'shopping', 'Week 1', 'EUR', NULL, NULL, 1795440415000, 1795440416000);
        INSERT INTO shopping_item VALUES (1, 1, 'Milk', 'milk', 'l', 2, 2, 1, 119, 1795440416000, 1795440415100, 1795440416000);
        INSERT INTO shopping_item VALUES (2, 1, 'Bread', 'bread', NULL, 1, 0, 0, NULL, NULL, 1795440415200, 1795440415200);
        INSERT INTO shopping_item VALUES (3, 1, 'Eggs', 'eggs', NULL, 1, 0, 0, NULL, NULL, 1795440415300, 1795440415300);
        DELETE FROM shopping_item WHERE id = 3;
        INSERT INTO event VALUES (1, '0a141459-a867-4c7d-b237-cef8072c5277', 'shopping.list_created', 'ann/1', '2026-11-23T13:26:55.000Z', '{"currency":"EUR","item_count":0,"kind":"shopping","list_id":1,"name":"Week 1","owner":"ann"}');
        INSERT INTO idempotency_key VALUES ('k-1', 'shopping.rename_list:ann', '{"args":{"list_id":1,"name":"Week 1","owner":"ann"},"locale":null}', '{"id":1,"name":"Week 1"}', 4102444800);
        """

    @Test func aFileAnOlderReleaseWroteIsUpgradedInPlace() throws {
        let harness = try ShoppingHarness(kind: .sqlite, prepare: { engine in _ = try engine.write { try $0.execute(Self.olderRelease) } })
        let steps = try harness.store.read { try Migrator.applied($0) }
        #expect(steps == ["event-counter", "event-epoch", "event-outbox", "event-request-id", "event-traceparent", "idempotency-keys", "shopping-v1", "shopping-v2-money128", "shopping-v3-list-lines", "shopping-v4-list-tallies"])
        #expect(try harness.store.read { try $0.fetchValue("SELECT typeof(unit_price_minor) FROM shopping_item WHERE id = 1", as: String.self) } == "text")

        // The data reads as before.
        let week1 = try harness.get(1, includePurchased: true)
        #expect(week1.names == ["Milk", "Bread"])
        #expect(week1["items"]?[0]?["unit_price"] == "1.19")
        #expect(week1["total"] == "2.38")
        #expect(week1["item_count"] == 2)
        #expect(week1["purchased_count"] == 1)
        // A key used before the upgrade stays used. The request stored under it named its owner,
        // as requests did then; today's request (the owner is the caller) is a different one, so
        // it is refused rather than run again, and records nothing.
        let reused = harness.error("shopping.rename_list", ["list_id": 1, "name": "Week 1"], key: "k-1")
        #expect(reused?.code == .failedPrecondition)
        #expect(reused?.field == "idempotency_key")
        // Shopping memory carries the bread into a new item, whose id is not the deleted item's;
        // prices compare with the ones stored before; the event sequence goes on from where it was.
        let week2 = try harness.call("shopping.create_list", ["kind": "shopping", "name": "Week 2", "currency": "EUR"])
        #expect(week2["carried_over"]?["items"]?[0]?["item_id"] == 4)
        let milk = try harness.item(try #require(week2["id"]?.intValue), "Milk")
        #expect(try harness.buy(2, milk, price: "1.29")["comparison"]?["previous_price"] == "1.19")
        #expect(try harness.types() == [
            "shopping.list_created", "shopping.list_created", "shopping.items_carried_over", "shopping.item_added",
            "shopping.item_purchased", "shopping.price_changed",
        ])
    }
}
