import TallyMoney

/// The tip calculator's rounding setting: leave the tip exact to the minor unit, or round the tip
/// or the total up or down to an increment such as a whole dollar.
enum TipRounding: String, CaseIterable, Sendable, Encodable {
    case exact
    case roundTipUp = "round_tip_up"
    case roundTipDown = "round_tip_down"
    case roundTotalUp = "round_total_up"
    case roundTotalDown = "round_total_down"

    /// The tip in minor units, from the exact tip on a bill of `amount`.
    ///
    /// `exact` rounds half up to the minor unit and ignores `increment`. The total roundings put
    /// amount + tip on a multiple of `increment` and take the tip as the difference. A tip is never
    /// negative: when rounding the total down would land below the bill itself (a 1% tip on 84.50
    /// rounded down to a whole dollar gives 84.00), the tip is 0 and the total is the bill.
    func tip(exact: Rational, amount: Int128, increment: Int128) -> Int128 {
        switch self {
        case .exact: exact.rounded(.halfUp)
        case .roundTipUp: exact.rounded(.up, toMultipleOf: increment)
        case .roundTipDown: exact.rounded(.down, toMultipleOf: increment)
        case .roundTotalUp: (Rational(amount) + exact).rounded(.up, toMultipleOf: increment) - amount
        case .roundTotalDown: max(0, (Rational(amount) + exact).rounded(.down, toMultipleOf: increment) - amount)
        }
    }
}
