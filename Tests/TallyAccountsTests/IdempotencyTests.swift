import Foundation
import TallyProtocol
import Testing

/// A client retry with the same idempotency_key never applies a change twice.
@Suite struct IdempotencyTests {
    private let wallet: JSONValue = ["name": "Wallet", "starting_balance": "10.00", "currency": "USD"]

    @Test func aRetriedCreateReturnsTheFirstAccount() throws {
        let harness = try AccountsHarness()
        let first = try harness.call("accounts.create", wallet, key: "k-1")
        let retry = try harness.call("accounts.create", wallet, key: "k-1")
        #expect(retry == first)
        #expect(try harness.count() == 1)
        // Without the key the same request is a new one, and the name is taken.
        #expect(harness.error("accounts.create", wallet)?.code == .alreadyExists)
        // The retry is answered even from a second worker process on the same file.
        #expect(try AccountsHarness.call(try harness.secondService(), "accounts.create", wallet, key: "k-1") == first)
    }

    @Test func aKeyReusedForADifferentRequestIsRefused() throws {
        let harness = try AccountsHarness()
        try harness.call("accounts.create", wallet, key: "k-1")
        var other = wallet.objectValue ?? [:]
        other["name"] = "Bank"
        let error = harness.error("accounts.create", .object(other), key: "k-1")
        #expect(error?.code == .failedPrecondition)
        #expect(error?.field == "idempotency_key")
        // Keys are per owner: another person may use the same key for their own request.
        #expect(try harness.call("accounts.create", .object(other), as: "bo", key: "k-1")["owner"] == "bo")
        // And per command.
        #expect(try harness.call("accounts.set_default", ["id": 1], key: "k-1")["is_default"] == true)
        #expect(try harness.count() == 2)
    }

    @Test func aFailedCreateStoresNoKeySoItsRetryRunsAgain() throws {
        let harness = try AccountsHarness()
        try harness.create("Wallet")
        #expect(harness.error("accounts.create", wallet, key: "k-2")?.code == .alreadyExists)
        #expect(try harness.count("SELECT COUNT(*) FROM idempotency_key") == 0)
        try harness.call("accounts.delete", ["id": 1])
        #expect(try harness.call("accounts.create", wallet, key: "k-2")["name"] == "Wallet")
    }

    @Test func retriedUpdatesAndDeletesApplyOnce() throws {
        let harness = try AccountsHarness()
        let account = try harness.call("accounts.create", wallet)
        let update: JSONValue = ["id": account.id, "name": "Pocket"]
        let updated = try harness.call("accounts.update", update, key: "u-1")
        try harness.call("accounts.update", ["id": account.id, "name": "Purse"])
        #expect(try harness.call("accounts.update", update, key: "u-1") == updated, "the stored answer, not a second rename")
        #expect(try harness.call("accounts.get", ["id": account.id])["name"] == "Purse")

        let delete: JSONValue = ["id": account.id]
        let deleted = try harness.call("accounts.delete", delete, key: "d-1")
        #expect(try harness.call("accounts.delete", delete, key: "d-1") == deleted, "a retried delete is not not_found")
        #expect(try harness.count() == 0)
    }

    @Test func theLocaleIsPartOfTheRequest() throws {
        let harness = try AccountsHarness()
        let noCurrency: JSONValue = ["name": "Cash", "starting_balance": "100"]
        #expect(try harness.call("accounts.create", noCurrency, locale: "ja_JP", key: "k-3")["currency"] == "JPY")
        #expect(harness.error("accounts.create", noCurrency, locale: "en_US", key: "k-3")?.code == .failedPrecondition)
    }
}
