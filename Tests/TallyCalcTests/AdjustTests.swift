import TallyProtocol
import Testing

@Suite struct AdjustTests {
    let even: JSONValue = ["33.04", "33.04", "33.04"]

    @Test func othersAbsorbTheChangeAndTheTotalHolds() throws {
        let result = try calc("calc.adjust", ["currency": "USD", "shares": even, "person": 0, "amount": "40.00"])
        #expect(result["total"] == "99.12")
        #expect(result["shares"] == ["40.00", "29.56", "29.56"])
        #expect(result["changed"] == [0, 1, 2])
    }

    @Test func lockedSharesKeepTheirAmount() throws {
        let result = try calc("calc.adjust", ["currency": "USD", "shares": even, "person": 0, "amount": "40.00", "locked": [2]])
        #expect(result["shares"] == ["40.00", "26.08", "33.04"])
        #expect(result["changed"] == [0, 1])
    }

    @Test func rebalancingFollowsCurrentAmounts() throws {
        let result = try calc("calc.adjust", ["currency": "USD", "shares": ["10.00", "20.00", "30.00"], "person": 0, "amount": "0"])
        #expect(result["shares"] == ["0.00", "24.00", "36.00"])
        let fromZero = try calc("calc.adjust", ["currency": "USD", "shares": ["10.00", "0", "0"], "person": 0, "amount": "4.01"])
        #expect(fromZero["shares"] == ["4.01", "3.00", "2.99"])
    }

    @Test func lockingThePersonThemselfChangesNothing() throws {
        let result = try calc("calc.adjust", ["currency": "USD", "shares": even, "person": 1, "amount": "33.00", "locked": [1]])
        #expect(result["shares"] == ["33.06", "33.00", "33.06"])
    }

    @Test func unchangedAmountWithEveryoneLockedIsFine() throws {
        let result = try calc("calc.adjust", ["currency": "USD", "shares": even, "person": 0, "amount": "33.04", "locked": [1, 2]])
        #expect(result["shares"] == even)
        #expect(result["changed"] == [])
        #expect(try calc("calc.adjust", ["currency": "USD", "shares": ["5"], "person": 0, "amount": "5.00"])["shares"] == ["5.00"])
    }

    @Test func yenSharesStayWhole() throws {
        let result = try calc("calc.adjust", ["currency": "JPY", "shares": ["1000", "1000", "1000"], "person": 2, "amount": "999"])
        #expect(result["shares"] == ["1001", "1000", "999"])
        #expect(result["total"] == "3000")
    }

    @Test func tooMuchIsRefused() {
        let alone = calcError("calc.adjust", ["currency": "USD", "shares": even, "person": 0, "amount": "100.00"])
        #expect(alone?.field == "args.amount")
        #expect(alone?.message == "the new amount exceeds the bill total of 99.12")
        let withLocks = calcError("calc.adjust", ["currency": "USD", "shares": even, "person": 0, "amount": "70.00", "locked": [1]])
        #expect(withLocks?.field == "args.amount")
        #expect(withLocks?.message == "the locked shares and the new amount exceed the bill total of 99.12")
    }

    @Test func nobodyLeftToRebalanceIsRefused() {
        let locked = calcError("calc.adjust", ["currency": "USD", "shares": even, "person": 1, "amount": "30.00", "locked": [0, 2]])
        #expect(locked?.field == "args.amount")
        #expect(locked?.message == "everyone else is locked, so person 1's share cannot change from 33.04")
        let alone = calcError("calc.adjust", ["currency": "USD", "shares": ["5.00"], "person": 0, "amount": "4.00"])
        #expect(alone?.field == "args.amount")
        #expect(alone?.message.contains("nobody else") == true)
    }

    @Test(arguments: [
        (["shares": ["1", "2"], "person": 2, "amount": "1"], "args.person"),
        (["shares": ["1", "2"], "person": -1, "amount": "1"], "args.person"),
        (["shares": ["1", "2"], "amount": "1"], "args.person"),
        (["shares": ["1", "2"], "person": 0], "args.amount"),
        (["shares": ["1", "2"], "person": 0, "amount": "1", "locked": [1, 1]], "args.locked[1]"),
        (["shares": ["1", "2"], "person": 0, "amount": "1", "locked": [5]], "args.locked[0]"),
        (["shares": ["1", "2"], "person": 0, "amount": "1", "locked": "1"], "args.locked"),
        (["shares": [], "person": 0, "amount": "1"], "args.shares"),
        (["shares": ["1", "2.001"], "person": 0, "amount": "1"], "args.shares[1]"),
        (["person": 0, "amount": "1"], "args.shares"),
        (["shares": ["1"], "person": 0, "amount": "1", "total": "1"], "args.total"),
    ] as [(JSONValue, String)])
    func errorsNameTheField(_ args: JSONValue, _ field: String) {
        var withCurrency = args.objectValue ?? [:]
        withCurrency["currency"] = "USD"
        let error = calcError("calc.adjust", .object(withCurrency))
        #expect(error?.code == .invalidArgument)
        #expect(error?.field == field, "\(error?.message ?? "no error")")
    }
}
