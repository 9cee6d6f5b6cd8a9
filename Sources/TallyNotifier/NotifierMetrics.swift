import Metrics
import TallyStorage

/// The notifier's metrics (swift-metrics), kept by the inlet's thread alone, so its caches take
/// no lock; each metric object is made once per source or alert kind:
///
/// - `tally_notifier_lag_events{source}`: events the source is known to have published (live, or
///   its feed's last sequence during catch-up) that the notifier had not yet handled, as of the
///   last event handled. Growing means alerts are late.
/// - `tally_notifier_event_delay_seconds{source}`: from an event's commit (its `time`) to the
///   notifier handling it, so its alerts' lateness in seconds; long after a catch-up.
/// - `tally_notifier_subscriber_connections`: connections to the alert outlet (subscribers, and
///   any connection still in its handshake).
/// - `tally_notifier_catch_up_calls_total{source}`: `<service>.events` calls made through the
///   gateway (each page counts): per event handled, how often holes outlasted the reorder window.
/// - `tally_notifier_events_handled_total{source}`, `tally_notifier_alerts_total{kind}`.
final class NotifierMetrics {
    private var sources: [String: Source] = [:]
    private var alerts: [String: Counter] = [:]
    private let subscriberConnections = Gauge(label: "tally_notifier_subscriber_connections")

    init(sources: [String]) {
        for name in sources { _ = source(name) }
        subscriberConnections.record(0)
    }

    final class Source {
        let lag: Gauge
        let handled: Counter
        let delay: Metrics.Timer
        let catchUpCalls: Counter
        /// The newest sequence the source is known to have.
        var newest: Int64 = 0

        init(_ name: String) {
            lag = Gauge(label: "tally_notifier_lag_events", dimensions: [("source", name)])
            handled = Counter(label: "tally_notifier_events_handled_total", dimensions: [("source", name)])
            delay = Metrics.Timer(
                label: "tally_notifier_event_delay_seconds", dimensions: [("source", name)], preferredDisplayUnit: .seconds)
            catchUpCalls = Counter(label: "tally_notifier_catch_up_calls_total", dimensions: [("source", name)])
            lag.record(0)
        }
    }

    func source(_ name: String) -> Source {
        if let source = sources[name] { return source }
        let source = Source(name)
        sources[name] = source
        return source
    }

    /// The source has an event numbered `sequence` (seen live, or named by its feed).
    func sourceHas(_ name: String, sequence: Int64) {
        let source = source(name)
        source.newest = max(source.newest, sequence)
    }

    /// The source's database began a new history after `sequence` (see `EventEpoch`): its
    /// newest known sequence is from that history on.
    func historyBegan(_ name: String, sequence: Int64) {
        source(name).newest = sequence
    }

    func catchUpCall(_ name: String) {
        source(name).catchUpCalls.increment()
    }

    /// - Parameter time: the event's `time` (RFC 3339), when it committed.
    func handled(_ name: String, sequence: Int64, time: String) {
        let source = source(name)
        source.handled.increment()
        source.lag.record(max(0, source.newest - sequence))
        if let committed = Timestamp.milliseconds(rfc3339: time) {
            source.delay.recordMilliseconds(max(0, Timestamp.now() - committed))
        }
    }

    func subscriberConnections(_ count: Int) {
        subscriberConnections.record(count)
    }

    func alert(kind: String) {
        if let counter = alerts[kind] { return counter.increment() }
        let counter = Counter(label: "tally_notifier_alerts_total", dimensions: [("kind", kind)])
        alerts[kind] = counter
        counter.increment()
    }
}
