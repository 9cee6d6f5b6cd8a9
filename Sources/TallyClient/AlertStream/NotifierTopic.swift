/// Topics on the notifier's PUB socket.
public enum NotifierTopic {
    /// Every event the notifier handles, forwarded: `event.<type>`.
    public static func event(_ type: String) -> String { "event.\(type)" }
    /// Every alert: `alert.<owner>.<kind>`. The owner comes first, so a subscriber can take one
    /// person's alerts only (`alerts(of:)`), and every alert with `alert.`.
    public static let alertPrefix = "alert."
    /// The prefix of one owner's alerts, `alert.<owner>.`; the final dot keeps user 1 from
    /// receiving user 12's. A filter, not a lock: until the transport is secured (CURVE), whoever
    /// reaches the PUB socket may subscribe to anything (docs/security.md).
    public static func alerts(of owner: String) -> String { "\(alertPrefix)\(owner)." }
    /// Once a second: `{"last_alert_sequence": N}`, so a subscriber notices alerts it missed
    /// (published while it was reconnecting, or stored by a notifier that died before publishing).
    public static let heartbeat = "notifier.heartbeat"
}
