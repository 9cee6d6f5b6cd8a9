import TallyProtocol

/// One page of `alerts.list`.
public struct AlertPage: Codable, Sendable, Equatable {
    public var alerts: [Alert]
    /// The highest alert sequence stored, of any kind or owner, when the page was read: a client
    /// that has everything up to here (matching its filter) has missed nothing.
    public var lastSequence: Int64
    /// Whether more alerts match after the last one of this page; ask again with `after` set to its sequence.
    public var more: Bool

    public init(alerts: [Alert], lastSequence: Int64, more: Bool) {
        self.alerts = alerts
        self.lastSequence = lastSequence
        self.more = more
    }
}
