import TallyProtocol

/// The roster's kinds of argument, read with the field named in every error.
extension Arguments {
    /// The string at `key` as `read` makes it a roster value; nil when absent. A string `read`
    /// refuses is an error saying what the value `mustBe`.
    fileprivate func optional<Value>(
        _ key: String, _ read: (String) -> Value?, mustBe: (String) -> String
    ) throws(TallyError) -> Value? {
        guard let text = try optionalString(key) else { return nil }
        guard let value = read(text) else { throw .invalidArgument("\(key) must be \(mustBe(text))", field: field(key)) }
        return value
    }

    /// A user id as the identity service gives them out: 1 to 128 bytes.
    func optionalUserID(_ key: String) throws(TallyError) -> String? {
        try optional(key, { !$0.isEmpty && $0.utf8.count <= 128 ? $0 : nil }) { _ in "a user id of 1 to 128 bytes" }
    }

    func userID(_ key: String) throws(TallyError) -> String {
        guard let id = try optionalUserID(key) else {
            throw .invalidArgument("\(key) is required (a member's user id, as roster.team lists them)", field: field(key))
        }
        return id
    }

    /// A date of the team's calendar, `YYYY-MM-DD`.
    func optionalDate(_ key: String) throws(TallyError) -> LocalDate? {
        try optional(key, LocalDate.init(_:)) { _ in
            "a date written YYYY-MM-DD, such as \"2030-03-30\", from year \(LocalDate.years.lowerBound) to \(LocalDate.years.upperBound)"
        }
    }

    func date(_ key: String) throws(TallyError) -> LocalDate {
        guard let date = try optionalDate(key) else {
            throw .invalidArgument("\(key) is required (a date written YYYY-MM-DD, such as \"2030-03-30\")", field: field(key))
        }
        return date
    }

    /// A wall-clock time, `HH:MM` on a 24-hour clock.
    func optionalTime(_ key: String) throws(TallyError) -> TimeOfDay? {
        try optional(key, TimeOfDay.init(_:)) { _ in "a time written HH:MM on a 24-hour clock, such as \"09:00\" or \"17:30\"" }
    }

    func optionalWeekday(_ key: String) throws(TallyError) -> Weekday? {
        try optional(key, Weekday.init(name:)) { _ in "a day of the week in lower case: \(Weekday.allCases.map(\.name).joined(separator: ", "))" }
    }

    func optionalRole(_ key: String) throws(TallyError) -> Role? {
        try optional(key, Role.init(rawValue:)) { _ in "\"manager\" or \"employee\"" }
    }

    /// `from` and `to`, both days included, at most `longest` days.
    func dateRange(longest: Int) throws(TallyError) -> ClosedRange<LocalDate> {
        try checkedRange(from: try date("from"), to: try date("to"), longest: longest)
    }

    /// `from` and `to` when given, else `defaults`; both days included, at most `longest` days.
    /// With only one of them, the range is as long as the default one, from or to that day.
    func optionalDateRange(longest: Int, defaults: ClosedRange<LocalDate>) throws(TallyError) -> ClosedRange<LocalDate> {
        let from = try optionalDate("from")
        let to = try optionalDate("to")
        let span = defaults.lowerBound.days(until: defaults.upperBound)
        switch (from, to) {
        case let (from?, to?): return try checkedRange(from: from, to: to, longest: longest)
        case let (from?, nil): return from...from.adding(days: span)
        case let (nil, to?): return to.adding(days: -span)...to
        case (nil, nil): return defaults
        }
    }

    private func checkedRange(from: LocalDate, to: LocalDate, longest: Int) throws(TallyError) -> ClosedRange<LocalDate> {
        guard from <= to else { throw .invalidArgument("to (\(to)) is before from (\(from))", field: field("to")) }
        let days = from.days(until: to) + 1
        guard days <= longest else {
            throw .invalidArgument("from \(from) to \(to) is \(days) days; ask for at most \(longest) at a time", field: field("to"))
        }
        return from...to
    }
}

extension Arguments {
    /// An IANA time zone name, such as `Europe/Amsterdam`.
    func optionalTimeZone(_ key: String) throws(TallyError) -> TeamTimeZone? {
        try optional(key, TeamTimeZone.init(identifier:)) { text in
            "an IANA time zone name as the tz database spells it, such as \"Europe/Amsterdam\", \"America/New_York\" or \"UTC\"; \"\(text)\" is not one"
        }
    }
}
