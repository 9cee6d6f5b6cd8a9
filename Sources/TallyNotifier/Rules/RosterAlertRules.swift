import TallyProtocol

/// The roster's alerts. A roster event names in `data.notify` the user ids its alert is for (the
/// people involved, the team's managers, the colleagues who could take a shift), so these rules
/// need no roster data: each makes one alert per recipient, since an alert has one owner.
enum RosterAlerts {
    static let rules: [any AlertRule] = [
        RosterAlertRule(eventType: "roster.change_approved", kind: "shift_approved") { "Shift change approved: \($0.change)" },
        RosterAlertRule(eventType: "roster.change_declined", kind: "shift_declined") { "Shift change declined: \($0.change)" },
        RosterAlertRule(eventType: "roster.shift_offered", kind: "shift_offered") {
            "\($0.from) offers a shift you could take: \($0.shift)"
        },
        RosterAlertRule(eventType: "roster.approval_requested", kind: "approval_requested") { "Waiting for your approval: \($0.change)" },
        RosterAlertRule(eventType: "roster.swap_requested", kind: "swap_requested") {
            "\($0.from) proposes a swap: your \($0.otherShift) for their \($0.shift)"
        },
    ]
}

/// One kind of roster alert: for each user id in the event's `data.notify`, an alert whose text
/// `text` writes from the event's trade.
public struct RosterAlertRule: AlertRule {
    public let eventType: String
    let kind: String
    let text: @Sendable (TradeWords) -> String

    init(eventType: String, kind: String, text: @escaping @Sendable (TradeWords) -> String) {
        self.eventType = eventType
        self.kind = kind
        self.text = text
    }

    public func alerts(for event: CloudEvent) -> [AlertDraft] {
        guard let words = TradeWords(event.data) else { return [] }
        let recipients = (event.data["notify"]?.arrayValue ?? []).compactMap(\.stringValue).filter { !$0.isEmpty }
        let message = text(words)
        return Array(Set(recipients)).sorted().map { AlertDraft(kind: kind, owner: $0, text: message, data: event.data) }
    }
}

/// A trade in an event's data, in words: "Cleo takes Bo's shift Cashier on Saturday 2030-03-30,
/// 09:00–17:00 at Corner Store".
struct TradeWords: Sendable {
    let from: String
    let to: String
    let shift: String
    let otherShift: String
    let change: String

    init?(_ data: JSONValue) {
        guard let trade = data["trade"], let kind = trade["kind"]?.stringValue, let shift = Self.slot(trade["shift"], team: data["team"])
        else { return nil }
        from = trade["from"]?["display_name"]?.stringValue ?? "Someone"
        to = trade["to"]?["display_name"]?.stringValue ?? "someone"
        self.shift = shift
        otherShift = Self.slot(trade["with_shift"], team: data["team"]) ?? "shift"
        switch kind {
        case "swap": change = "\(from) and \(to) swap \(shift) for \(otherShift)"
        case "wanted": change = "\(to) works the open shift \(shift)"
        default: change = trade["to"] == nil ? "\(from)'s offered shift \(shift)" : "\(to) takes \(from)'s shift \(shift)"
        }
    }

    /// "Cashier on Saturday 2030-03-30, 09:00–17:00 at Corner Store", from the slot's local times.
    static func slot(_ slot: JSONValue?, team: JSONValue?) -> String? {
        guard let slot, let position = slot["position"]?.stringValue, let date = slot["date"]?.stringValue,
            let starts = slot["starts_at"]?.stringValue, let ends = slot["ends_at"]?.stringValue,
            starts.count >= 16, ends.count >= 16
        else { return nil }
        let weekday = slot["weekday"]?.stringValue.map { " " + $0.prefix(1).uppercased() + $0.dropFirst() } ?? ""
        let clock = { (text: String) in text.dropFirst(11).prefix(5) }
        let team = team?["name"]?.stringValue.map { " at \($0)" } ?? ""
        return "\(position) on\(weekday) \(date), \(clock(starts))–\(clock(ends))\(team)"
    }
}
