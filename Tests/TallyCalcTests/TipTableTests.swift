import TallyProtocol
import Testing

@Suite struct TipTableTests {
    @Test func hasEveryWholePercentFromZeroToFifty() throws {
        let result = try calc("calc.tip_table", ["amount": "100.00", "currency": "USD", "split": 3])
        let rows = try #require(result["rows"]?.arrayValue)
        #expect(rows.count == 51)
        #expect(rows.map { $0["percent"]?.stringValue } == (0...50).map { String($0) })
        #expect(rows[0]["tip"] == "0.00" && rows[0]["total"] == "100.00" && rows[0]["per_person_total"] == "33.34")
        #expect(rows[50]["tip"] == "50.00" && rows[50]["per_person_total"] == "50.00")
        #expect(result["currency"] == "USD" && result["amount"] == "100.00" && result["tip_base"] == "100.00")
        #expect(result["rounding"] == "exact" && result["split"] == 3)
    }

    @Test(arguments: ["exact", "round_tip_up", "round_total_down"])
    func eachRowMatchesCalcTip(_ rounding: String) throws {
        let bill: [String: JSONValue] = [
            "amount": "108.88", "currency": "USD", "split": 4, "rounding": .string(rounding),
            "rounding_increment": "0.25", "tax": ["rate": "8.875", "tip_on_tax": false],
        ]
        let rows = try #require(try calc("calc.tip_table", .object(bill))["rows"]?.arrayValue)
        for percent in [0, 1, 18, 33, 50] {
            var args = bill
            args["tip_percent"] = .integer(Int64(percent))
            let tip = try calc("calc.tip", .object(args))
            #expect(rows[percent]["tip"] == tip["tip"])
            #expect(rows[percent]["total"] == tip["total"])
            #expect(rows[percent]["per_person_total"] == .string(column(tip["per_person"], "total")[0]))
        }
    }

    @Test func refusesTipPercent() {
        let error = calcError("calc.tip_table", ["amount": "10", "currency": "USD", "tip_percent": "18"])
        #expect(error?.field == "args.tip_percent")
    }
}
