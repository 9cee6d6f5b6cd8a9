import TallyProtocol
import Testing

@Suite struct SplitTests {
    @Test func equalSplitWithTaxAndTipPercent() throws {
        let result = try calc("calc.split", [
            "currency": "USD", "people": ["Ana", "Ben", "Cy"], "subtotal": "100.00", "tax": "8.00", "tip": ["percent": "15"],
        ])
        #expect(result["mode"] == "equal")
        #expect(result["subtotal"] == "100.00" && result["tax"] == "8.00" && result["tip"] == "15.00" && result["total"] == "123.00")
        let people = result["people"]
        #expect(column(people, "name") == ["Ana", "Ben", "Cy"])
        #expect(column(people, "subtotal") == ["33.34", "33.33", "33.33"])
        #expect(column(people, "tax") == ["2.67", "2.67", "2.66"])
        #expect(column(people, "tip") == ["5.00", "5.00", "5.00"])
        #expect(column(people, "total") == ["41.01", "41.00", "40.99"])
    }

    @Test func aCountNamesPeopleInOrder() throws {
        let result = try calc("calc.split", ["currency": "USD", "people": 2, "subtotal": "10"])
        #expect(column(result["people"], "name") == ["Person 1", "Person 2"])
        #expect(result["tax"] == "0.00" && result["tip"] == "0.00" && result["total"] == "10.00")
    }

    @Test func itemsAreSharedByTheirPeopleAndTheRestByEveryone() throws {
        let result = try calc("calc.split", [
            "currency": "USD", "people": ["Ana", "Ben", "Cy"], "mode": "items", "subtotal": "60.00",
            "items": [
                ["name": "Pizza", "price": "30.00", "people": [0, 1, 2]],
                ["name": "Wine", "price": "20.00", "people": [0, 1]],
            ],
        ])
        // Ana and Ben: 10 + 10 + 3.33⅓; Cy: 10 + 3.33⅓. The one cent left goes to the lowest index.
        #expect(column(result["people"], "subtotal") == ["23.34", "23.33", "13.33"])
        #expect(result["subtotal"] == "60.00")
    }

    @Test func itemsRoundOncePerBillNotPerItem() throws {
        // Three items of 0.01 shared by three, and 0.02 for the last person alone: exactly 0.01,
        // 0.01 and 0.03. Rounding each item first would give the first person every shared cent.
        let shared: JSONValue = ["price": "0.01", "people": [0, 1, 2]]
        let result = try calc("calc.split", [
            "currency": "USD", "people": 3, "mode": "items", "items": [shared, shared, shared, ["price": "0.02", "people": [2]]],
        ])
        #expect(column(result["people"], "subtotal") == ["0.01", "0.01", "0.03"])
    }

    @Test func itemsSubtotalDefaultsToTheirSum() throws {
        let result = try calc("calc.split", [
            "currency": "USD", "people": 2, "mode": "items", "tax": "1.00", "tip": ["amount": "3.00"],
            "items": [["name": "Salad", "price": "12.00", "people": [0]], ["name": "Steak", "price": "24.00", "people": [1]]],
        ])
        #expect(result["subtotal"] == "36.00" && result["total"] == "40.00")
        #expect(column(result["people"], "tax") == ["0.33", "0.67"])
        #expect(column(result["people"], "tip") == ["1.00", "2.00"])
        #expect(column(result["people"], "total") == ["13.33", "26.67"])
    }

    @Test func itemsBeyondTheSubtotalAreRefused() {
        let error = calcError("calc.split", [
            "currency": "USD", "people": 2, "mode": "items", "subtotal": "10.00", "items": [["price": "12.00", "people": [0]]],
        ])
        #expect(error?.field == "args.items")
        #expect(error?.message.contains("12.00") == true)
    }

    @Test func sharesAreWeights() throws {
        let result = try calc("calc.split", ["currency": "USD", "people": 3, "mode": "shares", "subtotal": "100.00", "shares": ["1", "1", "2"]])
        #expect(column(result["people"], "subtotal") == ["25.00", "25.00", "50.00"])
        let thirds = try calc("calc.split", ["currency": "USD", "people": 3, "mode": "shares", "subtotal": "1.00", "shares": ["0.5", 1, "0"]])
        #expect(column(thirds["people"], "subtotal") == ["0.33", "0.67", "0.00"])
    }

    @Test func amountsAreTakenAsGiven() throws {
        let result = try calc("calc.split", ["currency": "EUR", "people": 2, "mode": "amounts", "amounts": ["30.00", "20.50"], "tax": "5.05"])
        #expect(result["subtotal"] == "50.50" && result["currency"] == "EUR")
        #expect(column(result["people"], "subtotal") == ["30.00", "20.50"])
        #expect(column(result["people"], "tax") == ["3.00", "2.05"])
        let matching = try calc("calc.split", ["currency": "EUR", "people": 2, "mode": "amounts", "amounts": ["30", "20"], "subtotal": "50"])
        #expect(matching["subtotal"] == "50.00")
    }

    @Test func amountsMustAddUpToTheSubtotal() {
        let error = calcError("calc.split", ["currency": "USD", "people": 2, "mode": "amounts", "amounts": ["30.00", "20.00"], "subtotal": "60.00"])
        #expect(error?.field == "args.amounts")
        #expect(error?.message == "amounts add up to 50.00, but the subtotal is 60.00")
    }

    @Test func percentsMustAddUpToExactlyOneHundred() throws {
        let result = try calc("calc.split", ["currency": "USD", "people": 3, "mode": "percents", "subtotal": "10.00", "percents": ["50", "25.5", "24.5"]])
        #expect(column(result["people"], "subtotal") == ["5.00", "2.55", "2.45"])
        let error = calcError("calc.split", ["currency": "USD", "people": 2, "mode": "percents", "subtotal": "10.00", "percents": ["50", "49.5"]])
        #expect(error?.field == "args.percents")
        #expect(error?.message == "percents add up to 99.5, not 100")
    }

    @Test func taxAndTipSplitEquallyWhenEverySubtotalIsZero() throws {
        let result = try calc("calc.split", ["currency": "USD", "people": 2, "mode": "amounts", "amounts": ["0", "0"], "tax": "1.01"])
        #expect(column(result["people"], "tax") == ["0.51", "0.50"])
    }

    @Test func yenSplitsInWholeYen() throws {
        let result = try calc("calc.split", ["currency": "JPY", "people": 3, "subtotal": "1000", "tip": ["percent": "10"]])
        #expect(column(result["people"], "subtotal") == ["334", "333", "333"])
        #expect(result["tip"] == "100" && result["total"] == "1100")
    }

    @Test func autoCurrencyComesFromTheLocale() throws {
        #expect(try calc("calc.split", ["people": 2, "subtotal": "1.000"], locale: "ar_BH")["currency"] == "BHD")
    }

    @Test(arguments: [
        (["people": 2, "subtotal": "10", "mode": "halves"], "args.mode"),
        (["people": 2, "subtotal": "10", "shares": ["1", "1"]], "args.shares"),
        (["people": 2, "mode": "items", "items": [["price": "1", "people": [0]]], "amounts": ["1", "1"]], "args.amounts"),
        (["people": 2, "mode": "shares", "subtotal": "10", "shares": ["1"]], "args.shares"),
        (["people": 2, "mode": "shares", "subtotal": "10", "shares": ["0", "0"]], "args.shares"),
        (["people": 2, "mode": "shares", "subtotal": "10", "shares": ["1", "-1"]], "args.shares[1]"),
        (["people": 2, "mode": "shares", "shares": ["1", "1"]], "args.subtotal"),
        (["people": 2, "mode": "percents", "subtotal": "10", "percents": ["101", "-1"]], "args.percents[0]"),
        (["people": 2, "mode": "amounts", "amounts": ["1.001", "1"]], "args.amounts[0]"),
        (["people": 2, "mode": "items", "items": []], "args.items"),
        (["people": 2, "mode": "items", "items": ["pizza"]], "args.items[0]"),
        (["people": 2, "mode": "items", "items": [["price": "1", "people": [0]], ["price": "x", "people": [0]]]], "args.items[1].price"),
        (["people": 2, "mode": "items", "items": [["price": "1", "people": [2]]]], "args.items[0].people[0]"),
        (["people": 2, "mode": "items", "items": [["price": "1", "people": [1, 1]]]], "args.items[0].people[1]"),
        (["people": 2, "mode": "items", "items": [["price": "1", "people": []]]], "args.items[0].people"),
        (["people": 2, "mode": "items", "items": [["price": "1"]]], "args.items[0].people"),
        (["people": 2, "mode": "items", "items": [["price": "1", "people": [0], "qty": 2]]], "args.items[0].qty"),
        (["people": 2, "mode": "items", "items": [["name": " Pizza", "price": "1", "people": [0]]]], "args.items[0].name"),
        (["people": 0, "subtotal": "10"], "args.people"),
        (["people": 51, "subtotal": "10"], "args.people"),
        (["people": [], "subtotal": "10"], "args.people"),
        (["subtotal": "10"], "args.people"),
        (["people": ["Ana", ""], "subtotal": "10"], "args.people[1]"),
        (["people": ["Ana", "Ben "], "subtotal": "10"], "args.people[1]"),
        (["people": ["Ana", .string(String(repeating: "x", count: 41))], "subtotal": "10"], "args.people[1]"),
        (["people": ["Ana", 7], "subtotal": "10"], "args.people[1]"),
        (["people": 2, "subtotal": "10", "tax": "-1"], "args.tax"),
        (["people": 2, "subtotal": "10", "tip": ["percent": "51"]], "args.tip.percent"),
        (["people": 2, "subtotal": "10", "tip": ["percent": "10", "amount": "1"]], "args.tip"),
        (["people": 2, "subtotal": "10", "tip": [:]], "args.tip"),
        (["people": 2, "subtotal": "10", "tip": ["rate": "10"]], "args.tip.rate"),
        (["people": 2, "subtotal": "10", "currency": "EURO"], "args.currency"),
    ] as [(JSONValue, String)])
    func errorsNameTheField(_ args: JSONValue, _ field: String) {
        var withCurrency = args.objectValue ?? [:]
        if withCurrency["currency"] == nil { withCurrency["currency"] = "USD" }
        let error = calcError("calc.split", .object(withCurrency))
        #expect(error?.code == .invalidArgument)
        #expect(error?.field == field, "\(error?.message ?? "no error")")
    }

    @Test func namesMayBeFortyCharactersOfAnyScript() throws {
        let long = String(repeating: "é", count: 40)
        let result = try calc("calc.split", ["currency": "USD", "people": [.string(long), "李 小龙"], "subtotal": "1"])
        #expect(column(result["people"], "name") == [long, "李 小龙"])
    }
}
