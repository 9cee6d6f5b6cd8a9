import Foundation
import FuzzSupport
import TallyMoney
import TallyProtocol

/// A command's args as the money readers of `Arguments` read them: the currency (with a locale
/// for `"auto"`), amounts, percentages and weights, alone and in arrays, from fuzzed JSON. Any
/// `TallyError` is a correct answer; what they accept is within the bounds they promise.
///
/// Keys read: `currency`, `locale` (standing for the envelope's), `amount`, `rounding_increment`,
/// `amounts`, `tip_percent` (0 to 50), `rate` and `percents` (0 to 100), `weights`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMoneyArgs(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let value = try? JSONReader.parse(Fuzz.input(start, count)),
        let args = try? Arguments(value)
    else { return 0 }
    let requested = try? args.currency("currency", locale: args.values["locale"]?.stringValue)
    for currency in [requested, Currency.lookup("JPY"), Currency.lookup("BHD"), Currency.lookup("CLF")].compactMap({ $0 }) {
        var amounts = [try? args.amount("amount", in: currency), (try? args.optionalAmount("rounding_increment", in: currency)) ?? nil]
        for (index, element) in (args.values["amounts"]?.arrayValue ?? []).enumerated() {
            amounts.append(try? Arguments.amount(element, in: currency, field: "args.amounts[\(index)]", name: "amounts"))
        }
        for amount in amounts.compactMap({ $0 }) {
            Fuzz.require(amount >= 0 && amount <= currency.largestAmount, "\(amount) \(currency.code) is out of bounds")
        }
        if let total = currency.total(amounts.compactMap { $0 }) {
            Fuzz.require(total <= currency.largestAmount, "a total of \(total) \(currency.code) passed the largest amount")
        }
    }
    var percents = [(try? args.percent("tip_percent", in: 0...50)).map { ($0, Int64(50)) }, (try? args.percent("rate", in: 0...100)).map { ($0, Int64(100)) }]
    for (index, element) in (args.values["percents"]?.arrayValue ?? []).enumerated() {
        percents.append((try? Arguments.percent(element, in: 0...100, field: "args.percents[\(index)]", name: "percents")).map { ($0, 100) })
    }
    for (percent, maximum) in percents.compactMap({ $0 }) {
        Fuzz.require(Percent(whole: 0) <= percent && percent <= Percent(whole: maximum), "\(percent)% is out of range")
    }
    for (index, element) in (args.values["weights"]?.arrayValue ?? []).enumerated() {
        if let weight = try? Arguments.weight(element, field: "args.weights[\(index)]", name: "weights") {
            Fuzz.require(weight >= 0, "weight \(weight) is negative")
        }
    }
    return 0
}
