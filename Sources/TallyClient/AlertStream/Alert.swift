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
}
