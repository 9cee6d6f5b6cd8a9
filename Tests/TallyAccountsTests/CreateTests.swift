import Foundation
import TallyProtocol
import Testing

@Suite struct CreateTests {
    @Test func createsAnAccountWithEveryField() throws {
        let harness = try AccountsHarness()
        let account = try harness.call(
            "accounts.create",
            ["name": "  Wallet ", "currency": "usd", "starting_balance": "1250.5", "is_default": true])
        #expect(account["id"] == 1)
        #expect(account["owner"] == "ann")
        #expect(account["name"] == "Wallet", "the name is trimmed")
        #expect(account["currency"] == "USD")
        #expect(account["starting_balance"] == "1250.50", "formatted to the currency's places")
        #expect(account["is_default"] == true)
        let created = try #require(account["created_at"]?.stringValue)
        #expect(created.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/) != nil, "\(created)")
        #expect(account["updated_at"]?.stringValue == created)
        #expect(account.objectValue?.keys.sorted() == [
            "created_at", "currency", "id", "is_default", "name", "owner", "starting_balance", "updated_at",
        ])
        #expect(try harness.call("accounts.get", ["id": 1]) == account)
    }

    @Test func theCurrencyDefaultsToTheLocales() throws {
        let harness = try AccountsHarness()
        let yen = try harness.call("accounts.create", ["name": "Cash", "starting_balance": "5000"], locale: "ja_JP")
        #expect(yen["currency"] == "JPY")
        #expect(yen["starting_balance"] == "5000")
        let euro = try harness.call("accounts.create", ["name": "Giro", "starting_balance": "10", "currency": nil], locale: "de-DE")
        #expect(euro["currency"] == "EUR")
        #expect(euro["starting_balance"] == "10.00")
    }

    @Test func balancesMayBeDebtsAndJSONIntegers() throws {
        let harness = try AccountsHarness()
        #expect(try harness.create("Card", balance: "-80.5")["starting_balance"] == "-80.50")
        #expect(try harness.create("Dinar", balance: "1.25", currency: "BHD")["starting_balance"] == "1.250")
        let integer = try harness.call("accounts.create", ["name": "Jar", "starting_balance": 12, "currency": "USD"])
        #expect(integer["starting_balance"] == "12.00")
        #expect(try harness.create("Zero", balance: "-0")["starting_balance"] == "0.00")
        // 22 characters, the most the field takes, and the largest that fits 64-bit minor units.
        #expect(try harness.create("Hyper", balance: "92233720368547758.07")["starting_balance"] == "92233720368547758.07")
        #expect(try harness.create("Hyper debt", balance: "-92233720368547758.07")["starting_balance"] == "-92233720368547758.07")
    }

    @Test func namesCountUserPerceivedCharacters() throws {
        let harness = try AccountsHarness()
        let flags = String(repeating: "🇯🇵", count: 25)  // 25 characters, 50 Unicode scalars
        #expect(try harness.create(flags)["name"]?.stringValue == flags)
        let accents = String(repeating: "e\u{301}", count: 25)  // 25 characters, each e + combining accent
        #expect(try harness.create(accents)["name"]?.stringValue == accents)
        #expect(try harness.create(String(repeating: "a", count: 25))["name"]?.stringValue?.count == 25)
    }

    @Test func ownersAreSeparate() throws {
        let harness = try AccountsHarness()
        try harness.create("Wallet", owner: "ann", isDefault: true)
        try harness.create("Wallet", owner: "bo", isDefault: true)
        #expect(try harness.all(owner: "ann").count == 1)
        #expect(try harness.defaults(owner: "ann") == ["Wallet"])
        #expect(try harness.defaults(owner: "bo") == ["Wallet"])
    }

    @Test func twoServicesOnOneFileCreateConcurrently() throws {
        let harness = try AccountsHarness()
        let services = [harness.service, try harness.secondService(), try harness.secondService()]
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: 6) { worker in
            for index in 0..<30 {
                do {
                    _ = try AccountsHarness.call(
                        services[worker % services.count], "accounts.create",
                        ["name": .string("w\(worker)-\(index)"), "starting_balance": "1.00", "currency": "USD",
                         "is_default": .bool(index % 5 == 0)])
                } catch {
                    failures.append("\(error)")
                }
            }
        }
        #expect(failures.items.isEmpty, "\(failures.items.prefix(3))")
        #expect(try harness.count() == 180)
        #expect(try harness.defaults().count == 1)
        let ids = try harness.all().compactMap { $0["id"]?.intValue }
        #expect(ids == ids.sorted() && Set(ids).count == 180)
    }
}

final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func append(_ item: String) { lock.withLock { list.append(item) } }
    var items: [String] { lock.withLock { list } }
}
