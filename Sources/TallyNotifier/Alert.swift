import Foundation
import TallyProtocol

/// What the notifier tells people: one alert, derived by a rule from one event, stored in
/// `notifier.sqlite` under a sequence number and published on topic `alert.<owner>.<kind>`.
public struct Alert: Codable, Sendable, Equatable {
    /// The notifier's own numbering: strictly increasing, one per stored alert.
    public var sequence: Int64
    public var kind: String
    /// Whose alert it is: a user id (the events of accounts, shopping and roster name their
    /// people by user id). Only they see it, in `alerts.list` and `tally watch`.
    public var owner: String
    public var text: String
    /// When the event that caused it happened (the event's `time`).
    public var time: String
    /// The event's `source`, such as `tally/shopping`.
    public var source: String
    public var eventID: String
    public var data: JSONValue
    /// The W3C trace id of the request whose event caused the alert (from the event's
    /// `traceparent`), so the alert can be found in the traces; nil when it was not traced.
    public var traceID: String?

    public init(
        sequence: Int64, kind: String, owner: String, text: String, time: String, source: String, eventID: String,
        data: JSONValue, traceID: String? = nil
    ) {
        self.sequence = sequence
        self.kind = kind
        self.owner = owner
        self.text = text
        self.time = time
        self.source = source
        self.eventID = eventID
        self.data = data
        self.traceID = traceID
    }

    /// The PUB topic: `alert.<owner>.<kind>` (see `NotifierTopic`).
    public var topic: String { NotifierTopic.alerts(of: owner) + kind }

    /// The alert as the notifier publishes it: what `TallyJSON` writes from its `Encodable`
    /// form, written member by member (one is published per alert). `AlertWritingTests` holds the
    /// two equal, and the `events` fuzz target reads back every alert it makes. Empty when `data`
    /// holds a number that is not finite.
    public func encoded() -> Data {
        // Members in sorted key order.
        JSONMembers.object(reservingCapacity: 256) { members, out in
            try members.value("data", data, into: &out)
            members.string("event_id", eventID, into: &out)
            members.string("kind", kind, into: &out)
            members.string("owner", owner, into: &out)
            members.integer("sequence", sequence, into: &out)
            members.string("source", source, into: &out)
            members.string("text", text, into: &out)
            members.string("time", time, into: &out)
            members.optionalString("trace_id", traceID, into: &out)
        }
    }
}

/// What a rule makes of an event, before it is stored and numbered.
public struct AlertDraft: Sendable, Equatable {
    public var kind: String
    public var owner: String
    public var text: String
    public var data: JSONValue

    public init(kind: String, owner: String, text: String, data: JSONValue) {
        self.kind = kind
        self.owner = owner
        self.text = text
        self.data = data
    }
}

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
