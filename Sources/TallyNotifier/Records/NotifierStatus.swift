/// `alerts.status`: how far behind the notifier is, per source, and the last alert it stored:
/// what an operator watches (`tally status`) to see that alerts are not late.
///
/// Read from `notifier.sqlite`, not from the notifier's memory, so every process serving the
/// `alerts` service (the notifier, and `tally worker alerts` replicas on its data) answers the
/// same, and the answer survives a restart. The numbers are what the notifier knows: a source's
/// events it has not heard of (it is down, or cannot reach the gateway) do not count until it does.
public struct NotifierStatus: Codable, Sendable, Equatable {
    /// One source (a service that publishes events), by name.
    public struct Source: Codable, Sendable, Equatable {
        public var service: String
        /// The watermark: every event up to this sequence is handled.
        public var handledThrough: Int64
        /// The highest sequence the notifier knows the source has: seen live, or named by its
        /// `<service>.events` feed.
        public var newestKnown: Int64
        /// Events known and not yet handled in order: `newest_known - handled_through`. What
        /// `tally_notifier_lag_events` measures inside the notifier.
        public var lagEvents: Int64

        public init(service: String, handledThrough: Int64, newestKnown: Int64) {
            self.service = service
            self.handledThrough = handledThrough
            self.newestKnown = max(newestKnown, handledThrough)
            lagEvents = self.newestKnown - handledThrough
        }
    }

    /// Every source the notifier has handled or heard of an event of, by name.
    public var sources: [Source]
    /// The highest alert sequence stored (0: none).
    public var lastAlertSequence: Int64

    public init(sources: [Source], lastAlertSequence: Int64) {
        self.sources = sources
        self.lastAlertSequence = lastAlertSequence
    }
}
