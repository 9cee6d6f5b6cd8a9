import TallyProtocol

/// Events held back past a hole in their source's sequence while the notifier waits for the
/// hole's events before it asks the feed: with two or more worker processes of one service
/// publishing, their events reach the inlet in either order, so 12 before 11 is usual and 11
/// follows within milliseconds. Asking the feed at once made a catch-up call through the gateway
/// for nearly every such pair. Held, not handled, so that events are still handled (and their
/// alerts made) in sequence order; a hole that outlasts the window (a publish lost to a crash, a
/// full queue, a notifier that was down) is caught up on once.
///
/// Kept by the inlet's thread (`EventProcessor`), on its clock.
struct ReorderWindow {
    typealias Instant = ContinuousClock.Instant

    /// How long an event waits for the hole before it to fill.
    let length: Duration

    /// Per source, the events held, in sequence order, each with when its wait ends.
    private var held: [String: [(event: CloudEvent, due: Instant)]] = [:]

    init(length: Duration) {
        self.length = length
    }

    /// Holds `event` of `source`, which came past a hole.
    mutating func hold(_ event: CloudEvent, of source: String, at now: Instant) {
        var events = held[source] ?? []
        events.insert((event, now + length), at: events.firstIndex { $0.event.sequence > event.sequence } ?? events.endIndex)
        held[source] = events
    }

    /// Takes out the held events of `source` that follow on from `sequence` without a hole, in
    /// order (and any at or below it: copies, found duplicates when handled).
    mutating func release(_ source: String, after sequence: Int64) -> [CloudEvent] {
        guard var events = held[source] else { return [] }
        var through = sequence
        var released: [CloudEvent] = []
        while let first = events.first, first.event.sequence <= through + 1 {
            released.append(first.event)
            through = max(through, first.event.sequence)
            events.removeFirst()
        }
        held[source] = events.isEmpty ? nil : events
        return released
    }

    /// Takes out every held event of `source`, in order.
    mutating func releaseAll(_ source: String) -> [CloudEvent] {
        defer { held[source] = nil }
        return held[source]?.map(\.event) ?? []
    }

    /// The sources with an event whose wait has ended.
    func overdue(at now: Instant) -> [String] {
        held.filter { $0.value.contains { $0.due <= now } }.keys.sorted()
    }

    /// When the next wait ends; nil with nothing held.
    var nextDue: Instant? {
        held.values.flatMap { $0.map(\.due) }.min()
    }
}
