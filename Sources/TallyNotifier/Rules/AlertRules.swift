import Foundation
import TallyProtocol

/// One way of turning an event into alerts. Each rule is a type of its own and lives in
/// `AlertRules.all`; a new kind of alert (a budget exceeded) is a new rule there.
public protocol AlertRule: Sendable {
    /// The event type the rule reads, such as `shopping.price_changed`.
    var eventType: String { get }
    /// The alerts `event` gives rise to; often none.
    func alerts(for event: CloudEvent) -> [AlertDraft]
}

/// Every rule the notifier applies, in one place.
public enum AlertRules {
    public static let all: [any AlertRule] = [
        PriceChangeRule(),
        ItemsCarriedOverRule(),
    ] + RosterAlerts.rules

    /// The alerts of every rule for `event`, in rule order.
    public static func alerts(for event: CloudEvent, rules: [any AlertRule] = all) -> [AlertDraft] {
        rules.filter { $0.eventType == event.type }.flatMap { $0.alerts(for: event) }
    }

    /// An event's owner: `data.owner`, else the part of `subject` before the first `/`.
    static func owner(of event: CloudEvent) -> String? {
        if let owner = event.data["owner"]?.stringValue, !owner.isEmpty { return owner }
        if let subject = event.subject, let owner = subject.split(separator: "/").first, !owner.isEmpty {
            return String(owner)
        }
        return nil
    }

    /// A decimal string, or a number written as JSON.
    static func text(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let text)?: text
        case .integer(let number)?: String(number)
        default: nil
        }
    }
}

/// A shopping item's price went up or down since it was last bought:
/// "Milk cost more than last time: 1.29 EUR (was 1.19 EUR)".
public struct PriceChangeRule: AlertRule {
    public let eventType = "shopping.price_changed"

    public init() {}

    public func alerts(for event: CloudEvent) -> [AlertDraft] {
        let data = event.data
        guard let direction = data["direction"]?.stringValue, direction == "higher" || direction == "lower",
            let owner = AlertRules.owner(of: event),
            let item = data["item_name"]?.stringValue,
            let price = AlertRules.text(data["price"]),
            let previous = AlertRules.text(data["previous_price"])
        else { return [] }
        let currency = data["currency"]?.stringValue.map { " \($0)" } ?? ""
        let comparison = direction == "higher" ? "more" : "less"
        return [AlertDraft(
            kind: direction == "higher" ? "price_higher" : "price_lower", owner: owner,
            text: "\(item) cost \(comparison) than last time: \(price)\(currency) (was \(previous)\(currency))",
            data: data)]
    }
}

/// Items not bought on one list were carried over into a new one:
/// "2 items carried over into a new list: Milk, Eggs" (the shopping service sends `items`, each
/// with a `name`; a list name, when an event carries one, replaces "a new list").
public struct ItemsCarriedOverRule: AlertRule {
    public let eventType = "shopping.items_carried_over"

    public init() {}

    public func alerts(for event: CloudEvent) -> [AlertDraft] {
        let data = event.data
        guard let owner = AlertRules.owner(of: event) else { return [] }
        let names: [String] = (data["items"]?.arrayValue ?? []).compactMap { item in
            item.stringValue ?? item["name"]?.stringValue ?? item["item_name"]?.stringValue
        }
        let count = data["count"]?.intValue.map(Int.init) ?? data["item_count"]?.intValue.map(Int.init) ?? names.count
        guard count > 0 else { return [] }
        let list = ["to_list_name", "new_list_name", "list_name", "to_list"].lazy.compactMap { data[$0]?.stringValue }.first
        var text = count == 1 ? "1 item carried over" : "\(count) items carried over"
        text += list.map { " into \($0)" } ?? " into a new list"
        if !names.isEmpty { text += ": " + names.joined(separator: ", ") }
        return [AlertDraft(kind: "items_carried_over", owner: owner, text: text, data: data)]
    }
}
