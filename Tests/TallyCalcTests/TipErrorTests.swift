import TallyProtocol
import Testing

/// Every way calc.tip refuses input: invalid_argument, naming the field that is wrong.
@Suite struct TipErrorTests {
    @Test(arguments: [
        (["amount": "-5"], "args.amount"),
        (["amount": -5], "args.amount"),
        (["amount": "1.001"], "args.amount"),
        (["amount": "1e5"], "args.amount"),
        (["amount": .number(84.5)], "args.amount"),
        (["amount": "1000000000000"], "args.amount"),
        (["amount": "1,000"], "args.amount"),
        (["amount": ""], "args.amount"),
        (["amount": nil], "args.amount"),
        (["tip_percent": "51"], "args.tip_percent"),
        (["tip_percent": "-1"], "args.tip_percent"),
        (["tip_percent": "18.00001"], "args.tip_percent"),
        (["tip_percent": nil], "args.tip_percent"),
        (["split": 0], "args.split"),
        (["split": 51], "args.split"),
        (["split": "2"], "args.split"),
        (["currency": "XYZ"], "args.currency"),
        (["currency": 840], "args.currency"),
        (["tip_pct": "18"], "args.tip_pct"),
        (["tax": "8.875"], "args.tax"),
        (["tax": ["rate": "101"]], "args.tax.rate"),
        (["tax": ["rate": "8.87501"]], "args.tax.rate"),
        (["tax": [:]], "args.tax.rate"),
        (["tax": ["rate": "8", "tip_on_tax": "no"]], "args.tax.tip_on_tax"),
        (["tax": ["rate": "8", "included": true]], "args.tax.included"),
        (["rounding": "nearest"], "args.rounding"),
        (["rounding_increment": "0"], "args.rounding_increment"),
        (["rounding_increment": "1000.01"], "args.rounding_increment"),
        (["rounding_increment": "0.001"], "args.rounding_increment"),
    ] as [([String: JSONValue], String)])
    func errorsNameTheField(_ overrides: [String: JSONValue], _ field: String) {
        var args: [String: JSONValue] = ["amount": "84.00", "currency": "USD", "tip_percent": "18"]
        for (key, value) in overrides { args[key] = value }
        let error = calcError("calc.tip", .object(args))
        #expect(error?.code == .invalidArgument)
        #expect(error?.field == field, "\(error?.message ?? "no error")")
    }

    @Test func messagesSayWhatToDo() {
        let overPrecise = calcError("calc.tip", ["amount": "1.001", "currency": "USD", "tip_percent": "18"])
        #expect(overPrecise?.message == "amount is over-precise: USD amounts have at most 2 decimal places, and it has 3")
        let range = calcError("calc.tip", ["amount": "1", "currency": "USD", "tip_percent": "51"])
        #expect(range?.message == "tip_percent must be from 0 to 50 percent")
        let split = calcError("calc.tip", ["amount": "1", "currency": "USD", "tip_percent": "1", "split": 51])
        #expect(split?.message == "split must be a whole number from 1 to 50")
        let increment = calcError("calc.tip", ["amount": "1", "currency": "JPY", "tip_percent": "1", "rounding_increment": "2000"])
        #expect(increment?.message == "rounding_increment must be more than 0 and at most 1000 JPY")
    }

    @Test func theLargestBillIsFine() throws {
        let result = try calc("calc.tip", ["amount": "999999999999.99", "currency": "USD", "tip_percent": "50", "split": 50, "rounding": "round_total_up"])
        #expect(result["total"] == "1500000000000.00")
        #expect(result["tip"] == "500000000000.01")
    }
}
