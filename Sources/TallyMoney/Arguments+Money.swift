import TallyProtocol

/// Reading money out of a command's args, with errors that name the field and say how to fix it.
/// Every service that takes amounts, percentages or a currency reads them the same way.
extension Arguments {
    // MARK: Currency

    /// The currency argument: an ISO 4217 code in any letter case, or `"auto"` (also the default
    /// when absent) for the currency of the region in the request's `locale`.
    public func currency(_ key: String = "currency", locale: String?) throws(TallyError) -> Currency {
        let text = try optionalString(key) ?? "auto"
        // Any code has three letters: only a four-letter text is worth lowercasing (which allocates).
        guard text.utf8.count == 4, text.lowercased() == "auto" else {
            guard let currency = Currency.lookup(text) else {
                if let retired = CurrencyData.embedded.entry(text), retired.retired {
                    throw .invalidArgument(
                        "\(key) \(retired.code) (\(retired.name)) is a retired currency that ISO 4217 no longer lists; use a current code such as USD, EUR or JPY, or \"auto\"",
                        field: field(key))
                }
                throw .invalidArgument(
                    "\(key) is not a known currency; use an ISO 4217 code such as USD, EUR or JPY, or \"auto\"",
                    field: field(key))
            }
            return currency
        }
        guard let locale else {
            throw .invalidArgument(
                "\(key) \"auto\" needs the request's locale, such as en_US, to choose a currency; send a locale or an ISO 4217 code such as USD",
                field: field(key))
        }
        guard let currency = Currency.forLocale(locale) else {
            throw .invalidArgument(
                "\(key) \"auto\" needs a locale with a known region, such as en_US or de_CH, and \"\(locale)\" has none; send such a locale or an ISO 4217 code such as USD",
                field: field(key))
        }
        return currency
    }

    // MARK: Amounts

    /// A required amount in minor units of `currency`, written as a decimal string or JSON integer.
    public func amount(_ key: String, in currency: Currency) throws(TallyError) -> Int128 {
        let text = try decimalText(key, example: Arguments.example(in: currency))
        return try Arguments.amount(text: text, in: currency, field: field(key), name: key)
    }

    public func optionalAmount(_ key: String, in currency: Currency) throws(TallyError) -> Int128? {
        guard let text = try optionalDecimalText(key) else { return nil }
        return try Arguments.amount(text: text, in: currency, field: field(key), name: key)
    }

    /// An amount anywhere in the args, such as the array element `args.amounts[2]`.
    public static func amount(_ value: JSONValue, in currency: Currency, field: String, name: String) throws(TallyError) -> Int128 {
        try amount(text: decimalText(value, field: field), in: currency, field: field, name: name)
    }

    private static func amount(text: String, in currency: Currency, field: @autoclosure () -> String, name: String) throws(TallyError) -> Int128 {
        try reading(name, field: field(), example: example(in: currency), places: "\(currency.code) amounts") { () throws(DecimalTextError) in
            try currency.parseAmount(text)
        }
    }

    private static func example(in currency: Currency) -> String {
        "\"\(currency.format(84 * currency.minorPerUnit))\""
    }

    // MARK: Percentages and weights

    /// A required percentage with up to four decimal places, within `range` whole percent.
    public func percent(_ key: String, in range: ClosedRange<Int64>) throws(TallyError) -> Percent {
        let text = try decimalText(key, example: "\"18\" or \"8.875\"")
        return try Arguments.percent(text: text, in: range, field: field(key), name: key)
    }

    /// A percentage anywhere in the args, such as the array element `args.percents[1]`.
    public static func percent(_ value: JSONValue, in range: ClosedRange<Int64>, field: String, name: String) throws(TallyError) -> Percent {
        try percent(text: decimalText(value, field: field), in: range, field: field, name: name)
    }

    private static func percent(text: String, in range: ClosedRange<Int64>, field: @autoclosure () -> String, name: String) throws(TallyError) -> Percent {
        let percent = try reading(name, field: field(), example: "\"18\" or \"8.875\"", places: "percentages") { () throws(DecimalTextError) in
            try Percent(parsing: text)
        }
        guard Percent(whole: range.lowerBound) <= percent, percent <= Percent(whole: range.upperBound) else {
            throw .invalidArgument("\(name) must be from \(range.lowerBound) to \(range.upperBound) percent", field: field())
        }
        return percent
    }

    /// A non-negative decimal weight such as `"1"` or `"0.5"`, in ten-thousandths.
    public static func weight(_ value: JSONValue, field: String, name: String) throws(TallyError) -> Int128 {
        let text = try decimalText(value, field: field)
        return try reading(name, field: field, example: "\"1\" or \"0.5\"", places: "weights") { () throws(DecimalTextError) in
            try DecimalText.parse(text, scale: DecimalText.maxScale)
        }
    }

    // MARK: Messages

    /// Runs a parse and turns its failure into an error a person can act on. The texts of the
    /// message are made only for an error: every amount of every request passes through here.
    private static func reading<Value>(
        _ name: String, field: @autoclosure () -> String, example: @autoclosure () -> String, places: @autoclosure () -> String,
        _ parse: () throws(DecimalTextError) -> Value
    ) throws(TallyError) -> Value {
        do {
            return try parse()
        } catch {
            switch error {
            case .malformed:
                throw .invalidArgument(
                    "\(name) must be a non-negative decimal such as \(example()): digits with an optional point and more digits, no sign, exponent, spaces or thousands separators",
                    field: field())
            case .tooManyFractionDigits(let found, let allowed):
                let rule = allowed == 0 ? "are whole numbers" : "have at most \(allowed) decimal places"
                throw .invalidArgument("\(name) is over-precise: \(places()) \(rule), and it has \(found)", field: field())
            case .tooLarge:
                throw .invalidArgument(
                    "\(name) is an absurd magnitude: at most \(DecimalText.maxIntegerDigits) digits before the decimal point",
                    field: field())
            }
        }
    }
}
