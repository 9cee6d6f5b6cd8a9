import Foundation
import FuzzSupport
import TallyMoney

/// A decimal string from a request (an amount, a percentage, a weight) as money reads it, at
/// every scale and in currencies of 0, 2, 3 and 4 minor digits. What it accepts is within its
/// bounds and reads back from its own formatting as the same value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDecimal(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    // Strings reach money decoded from JSON, so they are Unicode text; invalid UTF-8 becomes U+FFFD.
    let text = String(decoding: Fuzz.input(start, count), as: UTF8.self)
    for scale in 0...DecimalText.maxScale {
        guard let value = try? DecimalText.parse(text, scale: scale) else { continue }
        Fuzz.require(
            value >= 0 && value < DecimalText.powerOfTen(DecimalText.maxIntegerDigits + scale),
            "\(text) at scale \(scale) reads as \(value), out of bounds")
        let formatted = DecimalText.format(value, scale: scale)
        Fuzz.require((try? DecimalText.parse(formatted, scale: scale)) == value, "\(text) at scale \(scale) does not read back from \(formatted)")
    }
    for code in ["JPY", "USD", "BHD", "CLF"] {
        let currency = Currency.lookup(code)!
        guard let amount = try? currency.parseAmount(text) else { continue }
        Fuzz.require(amount >= 0 && amount <= currency.largestAmount, "\(text) \(code) reads as \(amount), out of bounds")
        Fuzz.require((try? currency.parseAmount(currency.format(amount))) == amount, "\(text) \(code) does not read back")
    }
    if let percent = try? Percent(parsing: text) {
        Fuzz.require((try? Percent(parsing: percent.description)) == percent, "\(text) percent does not read back from \(percent)")
    }
    return 0
}
