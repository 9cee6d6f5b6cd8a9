import Foundation
import TallyProtocol
@testable import TallyAccounts
import TallyMoney
import Testing

/// What is kept on disk, and how values go in and out of it.
@Suite struct StorageTests {
    @Test func balancesAreStoredAsExactIntegerMinorUnits() throws {
        let harness = try AccountsHarness()
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
            #expect(try harness.call("accounts.get", ["owner": "ann", "id": created.id])["starting_balance"]?.stringValue == balance)
        }
        // 23 characters is past the field, however small the number.
        #expect(harness.error("accounts.create", ["owner": "ann", "name": "Long", "starting_balance": "0.000000000000000000001", "currency": "USD"])?.field == "args.starting_balance")
        // A yen balance that size still moves to dinars, three places more.
        let yen = try harness.create("Yen", balance: "9999999999999999999999", currency: "JPY")
        let dinars = try harness.call("accounts.update", ["owner": "ann", "id": yen.id, "currency": "BHD"])
        #expect(dinars["starting_balance"] == "9999999999999999999999.000")
    }

    @Test func theDatabaseIsOneFileThatSurvivesReopening() throws {
        let harness = try AccountsHarness()
        let wallet = try harness.create("Wallet", isDefault: true)
        #expect(FileManager.default.fileExists(atPath: harness.directory + "/accounts.sqlite"))
        let reopened = try harness.secondService()
        #expect(try AccountsHarness.call(reopened, "accounts.get", ["owner": "ann", "id": 1]) == wallet)
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
}
