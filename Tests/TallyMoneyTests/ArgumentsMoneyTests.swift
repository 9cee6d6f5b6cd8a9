import Testing
import TallyMoney
import TallyProtocol

@Suite struct ArgumentsMoneyTests {
    let usd = Currency.lookup("USD")!

    /// The TallyError `body` throws, or nil.
    private func error(_ body: () throws -> Void) -> TallyError? {
        do {
            try body()
            return nil
        } catch {
            return error as? TallyError
        }
    }

    @Test func readsAmountsFromStringsAndIntegers() throws {
        let args = try Arguments(["a": "84.5", "b": 84, "c": nil])
        #expect(try args.amount("a", in: usd) == 8450)
        #expect(try args.amount("b", in: usd) == 8400)
        #expect(try args.optionalAmount("c", in: usd) == nil)
        #expect(try args.optionalAmount("missing", in: usd) == nil)
    }

    @Test func amountErrorsNameTheFieldAndTheFix() throws {
        let args = try Arguments(["neg": "-1", "fine": "1.234", "big": "1000000000000", "float": .number(1.5), "yen": "1.5"])
        let malformed = error { _ = try args.amount("neg", in: usd) }
        #expect(malformed?.field == "args.neg")
        #expect(malformed?.message.contains("no sign") == true)

        let overPrecise = error { _ = try args.amount("fine", in: usd) }
        #expect(overPrecise?.field == "args.fine")
        #expect(overPrecise?.message == "fine is over-precise: USD amounts have at most 2 decimal places, and it has 3")

        let yen = error { _ = try args.amount("yen", in: Currency.lookup("JPY")!) }
        #expect(yen?.message == "yen is over-precise: JPY amounts are whole numbers, and it has 1")

        let big = error { _ = try args.amount("big", in: usd) }
        #expect(big?.field == "args.big")
        #expect(big?.message.contains("absurd magnitude") == true)

        #expect(error { _ = try args.amount("float", in: usd) }?.field == "args.float")

        let missing = error { _ = try args.amount("amount", in: usd) }
        #expect(missing?.field == "args.amount")
        #expect(missing?.message.contains("\"84.00\"") == true)
    }

    @Test func elementAmountsUseTheirPath() {
        let failure = error { _ = try Arguments.amount("1.001", in: usd, field: "args.amounts[1]", name: "amounts[1]") }
        #expect(failure?.field == "args.amounts[1]")
        #expect(failure?.message.hasPrefix("amounts[1] is over-precise") == true)
    }

    @Test func percentsAreRangeChecked() throws {
        let args = try Arguments(["p": "8.875", "high": "50.0001", "fine": "1.00001", "top": "50"])
        #expect(try args.percent("p", in: 0...100) == Percent(tenThousandths: 88_750))
        #expect(try args.percent("top", in: 0...50) == Percent(whole: 50))
        let high = error { _ = try args.percent("high", in: 0...50) }
        #expect(high?.field == "args.high")
        #expect(high?.message == "high must be from 0 to 50 percent")
        #expect(error { _ = try args.percent("fine", in: 0...50) }?.message.contains("percentages have at most 4 decimal places") == true)
    }

    @Test func weightsHaveFourPlaces() throws {
        #expect(try Arguments.weight("0.5", field: "args.shares[0]", name: "shares[0]") == 5000)
        #expect(try Arguments.weight(3, field: "args.shares[0]", name: "shares[0]") == 30_000)
        #expect(error { _ = try Arguments.weight("-1", field: "args.shares[2]", name: "shares[2]") }?.field == "args.shares[2]")
    }

    @Test func currencyIsACodeOrAutoFromTheLocale() throws {
        #expect(try Arguments(["currency": "gbp"]).currency(locale: nil).code == "GBP")
        #expect(try Arguments([:]).currency(locale: "de_CH").code == "CHF")
        #expect(try Arguments(["currency": "Auto"]).currency(locale: "ja_JP").code == "JPY")

        let unknown = error { _ = try Arguments(["currency": "XYZ"]).currency(locale: "en_US") }
        #expect(unknown?.field == "args.currency")
        #expect(unknown?.message == "currency is not a known currency; use an ISO 4217 code such as USD, EUR or JPY, or \"auto\"")
        let retired = error { _ = try Arguments(["currency": "dem"]).currency(locale: "en_US") }
        #expect(retired?.field == "args.currency")
        #expect(retired?.message.hasPrefix("currency DEM (German Mark) is a retired currency") == true)
        let noLocale = error { _ = try Arguments([:]).currency(locale: nil) }
        #expect(noLocale?.field == "args.currency")
        #expect(noLocale?.message.contains("en_US") == true)
        let noRegion = error { _ = try Arguments(["currency": "auto"]).currency(locale: "en") }
        #expect(noRegion?.field == "args.currency")
        #expect(noRegion?.message.contains("\"en\"") == true)
    }
}
