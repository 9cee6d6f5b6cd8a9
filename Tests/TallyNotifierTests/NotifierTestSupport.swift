import Foundation
import Logging
import TallyClient
import TallyNotifier
import TallyProtocol
import TallyStorage
import TallyTesting

/// A fresh notifier database in a temporary directory.
func makeStore(rules: [any AlertRule] = AlertRules.all) throws -> NotifierStore {
    try NotifierStore(engine: try makeEngine(), rules: rules)
}

/// A fresh, empty notifier database in a temporary directory: `notifier.sqlite`, or a
/// PostgreSQL database when `TALLY_TEST_DATABASE` says so. Its `engine()` opens it again, as
/// another notifier process (or a restart) does. `kind` is `.sqlite` for a test about SQLite's own file.
func makeDatabase(kind: TestDatabase.Kind = TestDatabase.kind) throws -> TestDatabase {
    try TestDatabase(kind: kind, name: "notifier", directory: TemporaryDirectory.untilExit(prefix: "notifier-test"))
}

/// An engine on a fresh, empty notifier database.
func makeEngine(kind: TestDatabase.Kind = TestDatabase.kind) throws -> any StorageEngine {
    try makeDatabase(kind: kind).engine()
}

func priceEvent(
    sequence: Int64, id: String? = nil, direction: String = "higher", item: String = "Milk", price: String = "1.29",
    previous: String = "1.19", owner: String = "ann", epoch: String? = nil
) -> CloudEvent {
    CloudEvent(
        id: id ?? "evt-\(sequence)", source: "tally/shopping", type: "shopping.price_changed",
        time: "2026-11-21T10:00:00.000Z", subject: "\(owner)/item-1", sequence: sequence,
        data: [
            "owner": .string(owner), "item_name": .string(item), "price": .string(price), "previous_price": .string(previous),
            "currency": "EUR", "direction": .string(direction),
        ], epoch: epoch)
}

/// A rule whose alert for an event of owner "bo" cannot be stored (its data does not encode), so
/// that one event of a batch fails.
struct BrokenForBo: AlertRule {
    let eventType = "shopping.price_changed"
    func alerts(for event: CloudEvent) -> [AlertDraft] {
        let owner = event.data["owner"]?.stringValue ?? ""
        return [AlertDraft(kind: "k", owner: owner, text: "t", data: owner == "bo" ? .number(.nan) : [:])]
    }
}

/// An event feed from a list, recording what it was asked.
final class FakeFeed: EventFeed, @unchecked Sendable {
    var events: [String: [CloudEvent]] = [:]
    var failing: Set<String> = []
    /// Per service, the epoch its database is in and the sequence that began after, as `<service>.events` says.
    var epochs: [String: (id: String, beganAfter: Int64)] = [:]
    var calls: [(service: String, after: Int64)] = []

    func events(service: String, after: Int64, limit: Int) throws -> EventFeedPage {
        calls.append((service, after))
        if failing.contains(service) { throw EventFeedError.refused(TallyError(.unavailable, "down")) }
        let all = events[service] ?? []
        return EventFeedPage(
            events: Array(all.filter { $0.sequence > after }.prefix(limit)), lastSequence: all.map(\.sequence).max() ?? 0,
            epoch: epochs[service]?.id, epochBeganAfter: epochs[service]?.beganAfter)
    }
}

/// Collects what a processor publishes.
final class Published: @unchecked Sendable {
    var messages: [(topic: String, body: Data)] = []
    var alerts: [Alert] {
        messages.filter { $0.topic.hasPrefix("alert.") }.compactMap { try? TallyJSON.decode(Alert.self, from: $0.body) }
    }
    var eventTopics: [String] { messages.map(\.topic).filter { $0.hasPrefix("event.") } }
}

/// A processor on `store` and `feed`; with no reorder window unless given one, so a hole is
/// caught up on in the `receive` that shows it.
func makeProcessor(
    store: NotifierStore, feed: FakeFeed, catalog: [String] = [], pageSize: Int = 100, reorderWindow: Duration = .zero
) -> (EventProcessor, Published) {
    let published = Published()
    let processor = EventProcessor(
        store: store, feed: feed, catalogSources: catalog, pageSize: pageSize, initialBackoff: .seconds(60),
        reorderWindow: reorderWindow, logger: Logger(label: "test")
    ) { topic, body in published.messages.append((topic, body)) }
    return (processor, published)
}
