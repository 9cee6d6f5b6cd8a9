/// The bookkeeping of `tally watch`, the ZeroMQ guide's Clone pattern applied to alerts: the
/// subscriber connects first, then fetches the stored backlog, and shows each alert once, in
/// sequence order, whether it came live or from `alerts.list`.
///
/// `covered` is the invariant: every alert with a sequence up to it has been shown (or is not
/// the watcher's: another owner's, or of another kind). A live alert right after it is shown; one at or below it is a duplicate; one
/// further on means alerts were missed (the subscriber was reconnecting, the notifier restarted,
/// a publish was lost), so the watcher fetches after `covered` — the live alert is stored before
/// it is published, so the fetch brings it too.
///
/// A person's watch sees only their own alerts, live (it subscribes to `alert.<owner>.`) and
/// fetched (`alerts.list` lists only the caller's), so the sequences it sees have holes where
/// other people's alerts are. It cannot tell those from missed alerts of its own, so a jump is
/// a fetch, which costs a call and loses nothing: the fetch answers for every sequence up to the
/// page's `last_sequence`, whoever's it was.
public struct WatchSeam: Sendable {
    public enum Decision: Sendable, Equatable {
        case show(Alert)
        /// Already shown, or not the watcher's: nothing to do.
        case skip
        /// Alerts are missing before this one: fetch after `covered`.
        case fetch
    }

    /// nil until the first fetch (or live alert) tells where the stream stands.
    public private(set) var covered: Int64?
    public let topicPrefix: String
    /// Whose alerts are shown: a user id, or nil for everyone's.
    public let owner: String?

    /// - Parameters:
    ///   - since: show stored alerts after this sequence; nil to show only new ones.
    ///   - owner: show only this user's alerts; nil for everyone's (an admin's watch).
    public init(since: Int64?, topicPrefix: String = "alert.", owner: String? = nil) {
        covered = since
        self.topicPrefix = topicPrefix
        self.owner = owner
    }

    /// Whether the alert is the watcher's: its owner's, and passing the `--topic` filter, a
    /// prefix of `alert.<kind>` or of the kind alone.
    public func matches(_ alert: Alert) -> Bool {
        guard owner == nil || alert.owner == owner else { return false }
        return topicPrefix.isEmpty || "\(NotifierTopic.alertPrefix)\(alert.kind)".hasPrefix(topicPrefix) || alert.kind.hasPrefix(topicPrefix)
    }

    /// The alerts of a fetched page still to show, in order; moves `covered` past the page.
    /// With no baseline yet and no `since`, only marks where the stream stands.
    public mutating func apply(_ page: AlertPage, baselineOnly: Bool = false) -> [Alert] {
        guard !baselineOnly, let start = covered else {
            covered = page.lastSequence
            return []
        }
        let shown = page.alerts.filter { $0.sequence > start && matches($0) }
        // Without more pages, everything up to last_sequence (read with the page) is now known;
        // a notifier whose database was replaced numbers from 1 again, and the watch follows it.
        covered = page.more ? max(start, page.alerts.last?.sequence ?? start) : page.lastSequence
        return shown
    }

    /// What to do with a live alert.
    public mutating func live(_ alert: Alert) -> Decision {
        guard let covered else {
            // No baseline yet (the backlog fetch has not succeeded): start from this alert.
            self.covered = alert.sequence
            return matches(alert) ? .show(alert) : .skip
        }
        if alert.sequence <= covered { return .skip }
        if alert.sequence > covered + 1 { return .fetch }
        self.covered = alert.sequence
        return matches(alert) ? .show(alert) : .skip
    }

    /// Whether a heartbeat's last alert sequence says something was missed.
    public func needsFetch(lastAlertSequence: Int64) -> Bool {
        guard let covered else { return true }
        return lastAlertSequence != covered
    }
}
