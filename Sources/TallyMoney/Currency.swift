/// An ISO 4217 currency and the one fact money arithmetic needs from it: how many decimal places
/// its minor unit has. Amounts are always whole counts of that minor unit (cents, yen, fils), in
/// 128 bits: wide enough for the 10^20 banknotes of hyperinflation and far beyond.
public struct Currency: Sendable, Hashable {
    /// The ISO 4217 alphabetic code, upper-case: `USD`.
    public let code: String
    /// Decimal places of the minor unit per ISO 4217: 2 for USD, 0 for JPY, 3 for BHD, 4 for the
    /// units of account CLF and UYW.
    public let minorUnits: Int
    /// The symbol people write before or after amounts: `$`, `£`, `¥`.
    public let symbol: String
    /// The English name: `US Dollar`.
    public let name: String

    public init(code: String, minorUnits: Int, symbol: String, name: String) {
        precondition((0...DecimalText.maxScale).contains(minorUnits), "ISO 4217 currencies in use have 0 to 4 minor digits")
        self.code = code
        self.minorUnits = minorUnits
        self.symbol = symbol
        self.name = name
    }

    /// Minor units in one whole unit: 100 for USD, 1 for JPY, 1000 for BHD.
    public var minorPerUnit: Int128 { DecimalText.powerOfTen(minorUnits) }

    /// The largest amount that parses: twelve nines before the point, the currency's minor digits after.
    public var largestAmount: Int128 { DecimalText.powerOfTen(DecimalText.maxIntegerDigits) * minorPerUnit - 1 }

    /// The sum of amounts, or nil when it passes `largestAmount`. Each amount is at most
    /// `largestAmount` (they were parsed) and the check comes after every addition, so it cannot overflow.
    public func total(_ amounts: [Int128]) -> Int128? {
        var sum: Int128 = 0
        for amount in amounts {
            sum += amount
            guard sum <= largestAmount else { return nil }
        }
        return sum
    }

    /// Reads an amount as written (`"84"`, `"84.5"`, `"84.50"`) into minor units. More decimal places
    /// than the currency has is refused rather than rounded away.
    public func parseAmount(_ text: String) throws(DecimalTextError) -> Int128 {
        try DecimalText.parse(text, scale: minorUnits)
    }

    /// Writes minor units with exactly the currency's decimal places: `15.12`, JPY `1500`, BHD `1.500`.
    public func format(_ minor: Int128) -> String {
        DecimalText.format(minor, scale: minorUnits)
    }
}
