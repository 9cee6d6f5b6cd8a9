import Foundation
import TallyProtocol
import Testing

/// An owner has at most one default account, whichever command changes it.
@Suite struct DefaultAccountTests {
    @Test func accountsAreNotDefaultUnlessAsked() throws {
        let harness = try AccountsHarness()
        #expect(try harness.create("Wallet")["is_default"] == false)
        #expect(try harness.defaults().isEmpty, "the first account is not made default by itself")
    }

    @Test func makingOneDefaultClearsTheOthersInTheSameTransaction() throws {
        let harness = try AccountsHarness()
        let wallet = try harness.create("Wallet", isDefault: true)
        let bank = try harness.create("Bank", isDefault: true)
        #expect(try harness.defaults() == ["Bank"])
        let cleared = try harness.call("accounts.get", ["id": wallet.id])
        #expect(cleared["updated_at"] != nil)

        #expect(try harness.call("accounts.set_default", ["id": wallet.id])["is_default"] == true)
        #expect(try harness.defaults() == ["Wallet"])

        #expect(try harness.call("accounts.update", ["id": bank.id, "is_default": true])["is_default"] == true)
        #expect(try harness.defaults() == ["Bank"])

        #expect(try harness.call("accounts.update", ["id": bank.id, "is_default": false])["is_default"] == false)
        #expect(try harness.defaults().isEmpty, "un-defaulting leaves the owner without a default")

        try harness.call("accounts.set_default", ["id": bank.id])
        try harness.call("accounts.delete", ["id": bank.id])
        #expect(try harness.defaults().isEmpty, "deleting the default promotes no other account")
    }

    @Test func settingTheDefaultAgainChangesNothing() throws {
        let harness = try AccountsHarness()
        let wallet = try harness.create("Wallet", isDefault: true)
        let again = try harness.call("accounts.set_default", ["id": wallet.id])
        #expect(again == wallet, "updated_at stays when nothing changed")
    }

    @Test func thePartialUniqueIndexRefusesASecondDefault() throws {
        let harness = try AccountsHarness()
        try harness.create("Wallet", isDefault: true)
        try harness.create("Bank")
        #expect(throws: (any Error).self) {
            try harness.execute("UPDATE account SET is_default = TRUE WHERE name = 'Bank'")
        }
        #expect(try harness.defaults() == ["Wallet"])
    }

    @Test func eachOwnerHasTheirOwnDefault() throws {
        let harness = try AccountsHarness()
        try harness.create("Wallet", owner: "ann", isDefault: true)
        let bos = try harness.create("Bank", owner: "bo", isDefault: true)
        #expect(try harness.defaults(owner: "ann") == ["Wallet"])
        try harness.call("accounts.set_default", ["id": bos.id], as: "bo")
        #expect(try harness.defaults(owner: "ann") == ["Wallet"])
    }
}
