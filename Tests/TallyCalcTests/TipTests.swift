import TallyProtocol
import Testing

@Suite struct TipTests {
    @Test func workedExampleSplitsEvenly() throws {
        let result = try calc("calc.tip", ["amount": "84.00", "currency": "USD", "tip_percent": "18", "split": 3])
        #expect(result["currency"] == "USD")
        #expect(result["amount"] == "84.00")
        #expect(result["tip_base"] == "84.00")
        #expect(result["tip"] == "15.12")
        #expect(result["total"] == "99.12")
        #expect(result["effective_tip_percent"] == "18.00")
        #expect(result["rounding"] == "exact")
        #expect(result["split"] == 3)
        let perPerson = result["per_person"]
        #expect(column(perPerson, "base") == ["28.00", "28.00", "28.00"])
        #expect(column(perPerson, "tip") == ["5.04", "5.04", "5.04"])
        #expect(column(perPerson, "total") == ["33.04", "33.04", "33.04"])
    }

    @Test func defaultsToOnePersonAndAcceptsIntegerAmounts() throws {
        let result = try calc("calc.tip", ["amount": 84, "currency": "usd", "tip_percent": 20])
        #expect(result["currency"] == "USD")
        #expect(result["split"] == 1)
        #expect(column(result["per_person"], "total") == ["100.80"])
        #expect(column(result["per_person"], "base") == ["84.00"])
    }

    @Test func unevenSplitsKeepEveryColumnExact() throws {
        let result = try calc("calc.tip", ["amount": "100.00", "currency": "USD", "tip_percent": "15", "split": 3])
        #expect(result["total"] == "115.00")
        #expect(column(result["per_person"], "total") == ["38.34", "38.33", "38.33"])
        #expect(column(result["per_person"], "tip") == ["5.00", "5.00", "5.00"])
        #expect(column(result["per_person"], "base") == ["33.34", "33.33", "33.33"])
    }

    @Test func exactTipsRoundHalfUpToTheMinorUnit() throws {
        #expect(try calc("calc.tip", ["amount": "10.05", "currency": "USD", "tip_percent": "15"])["tip"] == "1.51")
        #expect(try calc("calc.tip", ["amount": "0.10", "currency": "USD", "tip_percent": "5"])["tip"] == "0.01")
        #expect(try calc("calc.tip", ["amount": "84.00", "currency": "USD", "tip_percent": "12.5"])["tip"] == "10.50")
    }

    @Test func tipNotOnTaxUsesTheAmountBeforeTax() throws {
        let result = try calc("calc.tip", [
            "amount": "108.88", "currency": "USD", "tip_percent": "20", "tax": ["rate": "8.875", "tip_on_tax": false],
        ])
        #expect(result["tip_base"] == "100.00")
        #expect(result["tip"] == "20.00")
        #expect(result["total"] == "128.88")
        #expect(result["effective_tip_percent"] == "20.00")
    }

    @Test func tipOnTaxIsTheDefault() throws {
        let result = try calc("calc.tip", ["amount": "108.88", "currency": "USD", "tip_percent": "20", "tax": ["rate": "8.875"]])
        #expect(result["tip_base"] == "108.88")
        #expect(result["tip"] == "21.78")
    }

    @Test(arguments: [
        // 84.50 at 18%: the exact tip is 15.21 and the exact total 99.71.
        ("exact", nil, "15.21", "99.71", "18.00"),
        ("round_tip_up", nil, "16.00", "100.50", "18.93"),
        ("round_tip_down", nil, "15.00", "99.50", "17.75"),
        ("round_total_up", nil, "15.50", "100.00", "18.34"),
        ("round_total_down", nil, "14.50", "99.00", "17.16"),
        ("round_tip_up", "0.05", "15.25", "99.75", "18.05"),
        ("round_tip_down", "0.05", "15.20", "99.70", "17.99"),
        ("round_total_up", "0.05", "15.25", "99.75", "18.05"),
        ("round_total_down", "0.05", "15.20", "99.70", "17.99"),
        ("round_total_up", "3", "17.50", "102.00", "20.71"),
    ] as [(String, String?, String, String, String)])
    func roundingModes(_ rounding: String, _ increment: String?, _ tip: String, _ total: String, _ effective: String) throws {
        var args: [String: JSONValue] = ["amount": "84.50", "currency": "USD", "tip_percent": "18", "rounding": .string(rounding)]
        if let increment { args["rounding_increment"] = .string(increment) }
        let result = try calc("calc.tip", .object(args))
        #expect(result["tip"] == .string(tip))
        #expect(result["total"] == .string(total))
        #expect(result["effective_tip_percent"] == .string(effective))
        #expect(result["rounding"] == .string(rounding))
    }

    @Test func roundingTheTotalDownNeverMakesTheTipNegative() throws {
        let result = try calc("calc.tip", ["amount": "84.50", "currency": "USD", "tip_percent": "0.5", "rounding": "round_total_down"])
        #expect(result["tip"] == "0.00")
        #expect(result["total"] == "84.50")
        #expect(result["effective_tip_percent"] == "0.00")
    }

    @Test func zeroBillHasZeroEffectivePercent() throws {
        let result = try calc("calc.tip", ["amount": "0", "currency": "USD", "tip_percent": "18", "rounding": "round_total_up"])
        #expect(result["tip"] == "0.00")
        #expect(result["effective_tip_percent"] == "0.00")
    }

    @Test func yenHasNoMinorUnit() throws {
        let result = try calc("calc.tip", ["amount": "1500", "currency": "JPY", "tip_percent": "15", "split": 2])
        #expect(result["tip"] == "225")
        #expect(result["total"] == "1725")
        #expect(column(result["per_person"], "total") == ["863", "862"])
        #expect(column(result["per_person"], "tip") == ["113", "112"])
        #expect(column(result["per_person"], "base") == ["750", "750"])
        let rounded = try calc("calc.tip", [
            "amount": "1500", "currency": "JPY", "tip_percent": "15", "rounding": "round_total_up", "rounding_increment": "100",
        ])
        #expect(rounded["total"] == "1800")
        #expect(rounded["tip"] == "300")
    }

    @Test func bahrainiDinarHasThreePlaces() throws {
        let result = try calc("calc.tip", ["amount": "12.345", "currency": "BHD", "tip_percent": "10"])
        #expect(result["amount"] == "12.345")
        #expect(result["tip"] == "1.235")
        #expect(result["total"] == "13.580")
        let rounded = try calc("calc.tip", ["amount": "12.345", "currency": "BHD", "tip_percent": "10", "rounding": "round_tip_up"])
        #expect(rounded["tip"] == "2.000")
    }

    @Test(arguments: [("en_US", "USD"), ("en_GB", "GBP"), ("de-CH", "CHF"), ("fr_FR.UTF-8", "EUR"), ("ja_JP", "JPY")])
    func autoCurrencyComesFromTheLocale(_ locale: String, _ code: String) throws {
        #expect(try calc("calc.tip", ["amount": "10", "tip_percent": "10"], locale: locale)["currency"] == .string(code))
        #expect(try calc("calc.tip", ["amount": "10", "tip_percent": "10", "currency": "auto"], locale: locale)["currency"] == .string(code))
    }

    @Test func autoCurrencyNeedsALocaleWithARegion() {
        let none = calcError("calc.tip", ["amount": "10", "tip_percent": "10"])
        #expect(none?.code == .invalidArgument)
        #expect(none?.field == "args.currency")
        #expect(none?.message.contains("en_US") == true)
        #expect(calcError("calc.tip", ["amount": "10", "tip_percent": "10", "currency": "auto"], locale: "fr")?.field == "args.currency")
    }
}
