import Foundation
import TallyProtocol
import Testing

@Suite struct GetUpdateDeleteTests {
    @Test func anotherOwnersAccountIsNotFound() throws {
        let harness = try AccountsHarness()
        let wallet = try harness.create("Wallet", owner: "ann")
        let notFound = TallyError(.notFound, "you have no account 1", field: "args.id")
        #expect(harness.error("accounts.get", ["id": wallet.id], as: "bo") == notFound)
        #expect(harness.error("accounts.update", ["id": wallet.id, "name": "Mine"], as: "bo") == notFound)
        #expect(harness.error("accounts.set_default", ["id": wallet.id], as: "bo") == notFound)
        #expect(harness.error("accounts.delete", ["id": wallet.id], as: "bo") == notFound)
        #expect(harness.error("accounts.get", ["id": 99])?.code == .notFound)
        #expect(try harness.call("accounts.get", ["id": wallet.id]) == wallet, "untouched")
    }

    @Test func idsAreWholeNumbersFromOne() throws {
        let harness = try AccountsHarness()
        for command in ["accounts.get", "accounts.update", "accounts.delete", "accounts.set_default"] {
            #expect(harness.error(command, [:]) == TallyError(
                .invalidArgument, "id is required (the id of one of your accounts, such as 1)", field: "args.id"))
            for id in [0, "1", .number(1.5), -3] as [JSONValue] {
                #expect(harness.error(command, ["id": id]) == TallyError(
                    .invalidArgument, "id must be the id of one of your accounts: a whole number from 1", field: "args.id"), "\(command) \(id)")
            }
            #expect(harness.error(command, ["id": 1], as: nil)?.code == .unauthenticated)
        }
    }

    @Test func updateChangesWhatItIsGivenAndStampsUpdatedAt() throws {
        let harness = try AccountsHarness()
        let wallet = try harness.create("Wallet", balance: "10.00")
        Thread.sleep(forTimeInterval: 0.005)
        let renamed = try harness.call("accounts.update", ["id": wallet.id, "name": " Pocket ", "starting_balance": "-3.5"])
        #expect(renamed["name"] == "Pocket")
        #expect(renamed["starting_balance"] == "-3.50")
        #expect(renamed["currency"] == "USD")
        #expect(renamed["created_at"] == wallet["created_at"])
        #expect(renamed["updated_at"] != wallet["updated_at"])
        #expect(try harness.call("accounts.get", ["id": wallet.id]) == renamed)

        // Null is the same as leaving a field out.
        let same = try harness.call("accounts.update", ["id": wallet.id, "name": .null, "is_default": false])
        #expect(same == renamed, "nothing changed, so updated_at stays")
        // A new letter case of its own name is no clash.
        #expect(try harness.call("accounts.update", ["id": wallet.id, "name": "POCKET"])["name"] == "POCKET")
    }

    @Test func updateValidatesAsCreateDoes() throws {
        let harness = try AccountsHarness()
        let wallet = try harness.create("Wallet")
        try harness.create("Bank")
        let id = wallet.id
        #expect(harness.error("accounts.update", ["id": id]) == TallyError(
            .invalidArgument, "accounts.update needs at least one of currency, is_default, name, starting_balance to change", field: "args"))
        #expect(harness.error("accounts.update", ["id": id, "name": "bank"])?.code == .alreadyExists)
        #expect(harness.error("accounts.update", ["id": id, "name": "  "], locale: "ja_JP") == TallyError(
            .invalidArgument, "口座名と初期残高の両方を入力してください。", field: "args.name"))
        #expect(harness.error("accounts.update", ["id": id, "starting_balance": ""], locale: "zh_CN") == TallyError(
            .invalidArgument, "请填写账户名称和初始余额。", field: "args.starting_balance"))
        #expect(harness.error("accounts.update", ["id": id, "starting_balance": "1.001"])?.field == "args.starting_balance")
        #expect(harness.error("accounts.update", ["id": id, "currency": "ZZZ"])?.field == "args.currency")
        #expect(harness.error("accounts.update", ["id": id, "owner_id": "x"])?.field == "args.owner_id")
        #expect(harness.error("accounts.update", ["id": id, "name": .string(String(repeating: "x", count: 26))])?.field == "args.name")
        #expect(try harness.call("accounts.get", ["id": id]) == wallet, "no failed update changed anything")
    }

    @Test func changingTheCurrencyKeepsTheBalancesDecimalValueWhenItFits() throws {
        let harness = try AccountsHarness()
        let cash = try harness.create("Cash", balance: "12.00")
        let id = cash.id
        let yen = try harness.call("accounts.update", ["id": id, "currency": "jpy"])
        #expect(yen["currency"] == "JPY")
        #expect(yen["starting_balance"] == "12")
        let dinar = try harness.call("accounts.update", ["id": id, "currency": "BHD"])
        #expect(dinar["starting_balance"] == "12.000")
        // Both at once: the balance is read in the new currency.
        let euro = try harness.call("accounts.update", ["id": id, "currency": "EUR", "starting_balance": "7.25"])
        #expect(euro["starting_balance"] == "7.25")
        #expect(harness.error("accounts.update", ["id": id, "currency": "JPY", "starting_balance": "7.25"]) == TallyError(
            .invalidArgument, "starting_balance is over-precise: JPY amounts are whole numbers, and it has 2", field: "args.starting_balance"))

        let precise = harness.error("accounts.update", ["id": id, "currency": "JPY"])
        #expect(precise == TallyError(
            .invalidArgument,
            "the starting balance 7.25 cannot be kept in JPY: JPY amounts are whole numbers; send a starting_balance in JPY with the new currency",
            field: "args.currency"))
        // Past what 64-bit minor units held, and kept exactly.
        let huge = try harness.create("Huge", balance: "9223372036854775807", currency: "JPY")
        let dollars = try harness.call("accounts.update", ["id": huge.id, "currency": "USD"])
        #expect(dollars["starting_balance"] == "9223372036854775807.00")
        #expect(try harness.call("accounts.get", ["id": id]) == euro)
    }

    @Test func deleteReturnsTheAccountAsItWasAndForgetsIt() throws {
        let harness = try AccountsHarness()
        let wallet = try harness.create("Wallet", isDefault: true)
        #expect(try harness.call("accounts.delete", ["id": wallet.id]) == wallet)
        #expect(harness.error("accounts.get", ["id": wallet.id])?.code == .notFound)
        #expect(harness.error("accounts.delete", ["id": wallet.id])?.code == .notFound)
        // The name is free again, and the id is never reused.
        #expect(try harness.create("Wallet")["id"] == 2)
    }
}
