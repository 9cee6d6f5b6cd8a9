import Foundation
import GRDB
import TallyProtocol
@testable import TallyAccounts
import TallyMoney
import Testing

/// What is kept on disk, and how values go in and out of it.
@Suite struct StorageTests {
    @Test func balancesAreStoredAsIntegerMinorUnits() throws {
        let harness = try AccountsHarness()
        try harness.create("Card", balance: "-80.50")
        try harness.create("Dinar", balance: "1.25", currency: "BHD")
        let stored = try harness.database.read {
            try Row.fetchAll($0, sql: "SELECT name, currency, starting_balance_minor, typeof(starting_balance_minor) AS type FROM account ORDER BY id")
        }
        #expect(stored.map { $0["starting_balance_minor"] as Int64 } == [-8050, 1250])
        #expect(stored.map { $0["type"] as String } == ["integer", "integer"])
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
        #expect(StartingBalance.rescale(Int64.max, from: jpy, to: usd) == nil)
        #expect(StartingBalance.rescale(-Int64.max, from: jpy, to: usd) == nil)
    }
}
