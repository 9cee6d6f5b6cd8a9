/// Typed, path-aware access to a command's `args` object.
///
/// Every accessor names the offending field in its error (`args.tax.rate`,
/// `args.items[1].people[0]`), so handlers validate input without writing messages by hand.
public struct Arguments: Sendable {
    /// Where this object sits in the request, for error messages: `args`, `args.tax`, `args.items[2]`.
    public let path: String
    public let values: [String: JSONValue]

    public init(_ value: JSONValue, path: String = "args") throws(TallyError) {
        guard case .object(let values) = value else {
            throw .invalidArgument("\(path) must be a JSON object, not \(value.typeName)", field: path)
        }
        self.path = path
        self.values = values
    }

    public func field(_ key: String) -> String { "\(path).\(key)" }

    /// Present and not null.
    public func has(_ key: String) -> Bool {
        if let value = values[key], value != .null { return true }
        return false
    }

    /// Rejects keys the command does not define, so a typo (`tip_pct`) is an error, not a silent default.
    public func allowOnly(_ keys: Set<String>) throws(TallyError) {
        // Every key known is the common case: checked without sorting (an allocation and a sort
        // on every request); the keys are sorted only to name the first unknown one.
        guard !values.keys.allSatisfy(keys.contains) else { return }
        if let unknown = values.keys.sorted().first(where: { !keys.contains($0) }) {
            let accepted = keys.isEmpty ? "\(path) takes no fields" : "\(path) accepts \(keys.sorted().joined(separator: ", "))"
            throw .invalidArgument("unknown field '\(unknown)'; \(accepted)", field: field(unknown))
        }
    }

    /// For a command that changes any of some fields (`accounts.update`): refuses a request that
    /// gives none of them, since `command` would have nothing to `verb`.
    public func requireAny(of fields: [String], for command: String, to verb: String = "change") throws(TallyError) {
        guard !fields.contains(where: has) else { return }
        throw .invalidArgument("\(command) needs at least one of \(fields.joined(separator: ", ")) to \(verb)", field: path)
    }

    private func present(_ key: String) -> JSONValue? {
        guard let value = values[key], value != .null else { return nil }
        return value
    }

    private func missing(_ key: String, _ example: String) -> TallyError {
        .invalidArgument("\(key) is required (\(example))", field: field(key))
    }

    // MARK: Strings

    public func string(_ key: String, example: String = "a string") throws(TallyError) -> String {
        guard let value = try optionalString(key) else { throw missing(key, example) }
        return value
    }

    public func optionalString(_ key: String) throws(TallyError) -> String? {
        guard let value = present(key) else { return nil }
        guard case .string(let text) = value else {
            throw .invalidArgument("\(key) must be a string, not \(value.typeName)", field: field(key))
        }
        return text
    }

    // MARK: Decimals

    /// A decimal written as a JSON string ("12.50") or a JSON integer (12). A JSON number with a
    /// fraction is refused: it has already been through binary floating point and may not be exact.
    public func decimalText(_ key: String, example: @autoclosure () -> String = "\"12.50\"") throws(TallyError) -> String {
        guard let value = try optionalDecimalText(key) else { throw missing(key, "a decimal string such as \(example())") }
        return value
    }

    public func optionalDecimalText(_ key: String) throws(TallyError) -> String? {
        guard let value = present(key) else { return nil }
        return try Arguments.decimalText(value, field: field(key))
    }

    /// `field` is made only for an error.
    public static func decimalText(_ value: JSONValue, field: @autoclosure () -> String) throws(TallyError) -> String {
        switch value {
        case .string(let text): return text
        case .integer(let number): return String(number)
        case .number:
            let field = field()
            throw .invalidArgument(
                "\(field.split(separator: ".").last ?? "") must be a decimal string such as \"12.50\"; JSON numbers with a fraction are not exact",
                field: field)
        default:
            throw .invalidArgument("must be a decimal string such as \"12.50\", not \(value.typeName)", field: field())
        }
    }

    // MARK: Integers and booleans

    public func integer(_ key: String, in range: ClosedRange<Int>) throws(TallyError) -> Int {
        guard let value = try optionalInteger(key, in: range) else {
            throw missing(key, "a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    public func optionalInteger(_ key: String, in range: ClosedRange<Int>) throws(TallyError) -> Int? {
        guard let value = present(key) else { return nil }
        return try Arguments.integer(value, in: range, field: field(key), name: key)
    }

    /// `field` is made only for an error.
    public static func integer(_ value: JSONValue, in range: ClosedRange<Int>, field: @autoclosure () -> String, name: String) throws(TallyError) -> Int {
        guard case .integer(let number) = value, number >= range.lowerBound, number <= range.upperBound else {
            throw .invalidArgument("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)", field: field())
        }
        return Int(number)
    }

    public func optionalBool(_ key: String) throws(TallyError) -> Bool? {
        guard let value = present(key) else { return nil }
        guard case .bool(let flag) = value else {
            throw .invalidArgument("\(key) must be true or false, not \(value.typeName)", field: field(key))
        }
        return flag
    }

    // MARK: Nested values

    public func optionalObject(_ key: String) throws(TallyError) -> Arguments? {
        guard let value = present(key) else { return nil }
        return try Arguments(value, path: field(key))
    }

    public func optionalArray(_ key: String) throws(TallyError) -> [JSONValue]? {
        guard let value = present(key) else { return nil }
        guard case .array(let elements) = value else {
            throw .invalidArgument("\(key) must be an array, not \(value.typeName)", field: field(key))
        }
        return elements
    }

    public func array(_ key: String, example: String = "an array") throws(TallyError) -> [JSONValue] {
        guard let value = try optionalArray(key) else { throw missing(key, example) }
        return value
    }
}
