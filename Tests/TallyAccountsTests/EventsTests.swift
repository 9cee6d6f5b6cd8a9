import TallyProtocol
import TallyTesting
import Testing

/// Every change records its event in the same transaction; a retry or a refused change records none.
@Suite struct AccountsEventsTests {
    private func types(_ harness: AccountsHarness, after: Int64 = 0) throws -> [String] {
        let feed = try ServiceHarness(harness.service).call("accounts.events", ["after": .integer(after)], caller: ServiceHarness.serviceAccount)
        return feed["events"]?.arrayValue?.compactMap { $0["type"]?.stringValue } ?? []
    }

    @Test func eachChangeRecordsOneEvent() throws {
        let harness = try AccountsHarness()
        let wallet = try harness.create("Wallet")
        let id = try #require(wallet["id"])
        try harness.call("accounts.update", ["id": id, "name": "Purse"])
        try harness.call("accounts.set_default", ["id": id])
        try harness.call("accounts.delete", ["id": id])
        #expect(try types(harness) == [
            "accounts.account_created", "accounts.account_updated", "accounts.default_changed", "accounts.account_deleted",
        ])
        let feed = try ServiceHarness(harness.service).call("accounts.events", ["after": 1, "limit": 2], caller: ServiceHarness.serviceAccount)
        #expect(feed["events"]?.arrayValue?.map { $0["sequence"] } == [2, 3])
        #expect(feed["last_sequence"] == 4)
        #expect(feed["events"]?[0]?["data"]?["name"] == "Purse")
    }

    @Test func aRetryOrARefusedChangeRecordsNothing() throws {
        let harness = try AccountsHarness()
        let args: JSONValue = ["name": "Wallet", "starting_balance": "1", "currency": "USD"]
        try harness.call("accounts.create", args, key: "k-1")
        try harness.call("accounts.create", args, key: "k-1")
        #expect(harness.error("accounts.create", ["name": "wallet", "starting_balance": "1", "currency": "USD"])?.code == .alreadyExists)
        #expect(try types(harness) == ["accounts.account_created"])
    }
}
