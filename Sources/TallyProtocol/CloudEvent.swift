/// A domain event as Tally publishes it: CloudEvents 1.0 in JSON, plus `sequence`.
///
/// `sequence` is per service, strictly increasing and gap-free in the service's database, so a
/// subscriber that sees 41 then 43 knows it missed 42 and can fetch it with `<service>.events`.
/// `id` is unique across services and restarts (a UUID), which is what subscribers de-duplicate by.
public struct CloudEvent: Codable, Sendable, Equatable {
    public var specversion: String
    public var id: String
    /// `tally/<service>`.
    public var source: String
    /// `<service>.<event>`, such as `shopping.price_changed`; also the ZeroMQ topic frame.
    public var type: String
    /// RFC 3339, UTC, milliseconds.
    public var time: String
    /// What the event is about, such as `<owner>/<list id>`.
    public var subject: String?
    public var datacontenttype: String
    public var sequence: Int64
    public var data: JSONValue

    public init(
        id: String, source: String, type: String, time: String, subject: String?, sequence: Int64, data: JSONValue
    ) {
        specversion = "1.0"
        self.id = id
        self.source = source
        self.type = type
        self.time = time
        self.subject = subject
        datacontenttype = "application/json"
        self.sequence = sequence
        self.data = data
    }

    /// The service that published it: the part of `source` after `tally/`.
    public var service: String {
        source.hasPrefix("tally/") ? String(source.dropFirst("tally/".count)) : source
    }
}
