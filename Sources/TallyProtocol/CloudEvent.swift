import Foundation

/// A domain event as Tally publishes it: CloudEvents 1.0 in JSON, plus `sequence`.
///
/// `sequence` is per service, strictly increasing and gap-free in the service's database, so a
/// subscriber that sees 41 then 43 knows it missed 42 and can fetch it with `<service>.events`.
/// `id` is unique across services and restarts (a UUID), which is what subscribers de-duplicate by.
///
/// Subscribers read it from the wire with `decode(_:)`, which checks only what they rely on, so
/// events from any publisher that keeps the contract, in any language, are accepted.
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
    /// `application/json` from Tally's publishers; optional in CloudEvents, so others may omit it.
    public var datacontenttype: String?
    public var sequence: Int64
    public var data: JSONValue
    /// The `id` of the request whose change recorded the event (a CloudEvents extension
    /// attribute, `requestid`), so one request can be followed from the gateway to its events and
    /// alerts; absent when the request had none or the change was the service's own.
    public var requestID: String?
    /// The history of the service's database the event belongs to (a CloudEvents extension
    /// attribute, `epoch`): made when the database is created and made anew when it is restored
    /// from a backup, whose sequence then goes on from the backup's. The same `sequence` in two
    /// epochs may be two different events; a subscriber that sees a new epoch asks the feed where
    /// it began (`<service>.events`' `epoch_began_after`). Absent from publishers that keep none.
    public var epoch: String?
    /// The W3C trace context of the span that recorded the event (the CloudEvents
    /// distributed-tracing extension, `traceparent`): a subscriber's handling of the event joins
    /// the trace of the request that caused it. Absent when that request was not traced.
    public var traceparent: String?

    enum CodingKeys: String, CodingKey {
        case specversion, id, source, type, time, subject, datacontenttype, sequence, data, epoch, traceparent
        case requestID = "requestid"
    }

    public init(
        id: String, source: String, type: String, time: String, subject: String? = nil, sequence: Int64, data: JSONValue,
        requestID: String? = nil, epoch: String? = nil, traceparent: String? = nil
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
        self.requestID = requestID
        self.epoch = epoch
        self.traceparent = traceparent
    }

    /// The service whose sequence this event carries: `source` without `tally/`, else the first
    /// word of `type`. Progress, gaps and catch-up are kept per service.
    public var service: String {
        if source.hasPrefix("tally/"), source.count > "tally/".count { return String(source.dropFirst("tally/".count)) }
        return String(type.prefix(while: { $0 != "." }))
    }

    /// Decodes one event from the wire, checking what subscribers rely on.
    ///
    /// Read with `JSONReader` into a `JSONValue` and taken member by member, not with
    /// `JSONDecoder`, which was most of what the notifier spent on an event. It accepts what
    /// `JSONDecoder().decode(CloudEvent.self, from:)` accepts, with the same result (the `events`
    /// fuzz target compares the two): the members as `Codable` would read them, unknown members
    /// ignored. One difference: it refuses a text that is not JSON throughout, where JSONDecoder
    /// does not look into the members it does not read (and accepts invalid UTF-8 there).
    public static func decode(_ data: Data) throws -> CloudEvent {
        let value: JSONValue
        do {
            value = try JSONReader.parse(data)
        } catch {
            throw EventDecodingError(detail: "not JSON: \(error)")
        }
        guard case .object(let members) = value else { throw EventDecodingError(detail: "an event is a JSON object") }
        func string(_ key: CodingKeys) throws -> String {
            guard case .string(let text)? = members[key.rawValue] else {
                throw EventDecodingError(detail: "an event needs '\(key.rawValue)', a string")
            }
            return text
        }
        func optionalString(_ key: CodingKeys) throws -> String? {
            switch members[key.rawValue] {
            case nil, .null?: return nil
            case .string(let text)?: return text
            default: throw EventDecodingError(detail: "an event's '\(key.rawValue)' is a string when present")
            }
        }
        guard case .integer(let sequence)? = members[CodingKeys.sequence.rawValue] else {
            throw EventDecodingError(detail: "an event needs 'sequence', an integer")
        }
        guard let payload = members[CodingKeys.data.rawValue] else { throw EventDecodingError(detail: "an event needs 'data'") }
        // As deep as a `JSONValue` may be decoded (`JSONValue.maximumDepth`, counted from the
        // event, whose `data` is one level down): what is handled downstream recurses per level.
        guard !payload.nests(deeperThan: JSONValue.maximumDepth - 1) else {
            throw EventDecodingError(detail: "an event's data nests more than \(JSONValue.maximumDepth - 1) levels deep")
        }
        var event = CloudEvent(
            id: try string(.id), source: try string(.source), type: try string(.type), time: try string(.time),
            subject: try optionalString(.subject), sequence: sequence, data: payload, requestID: try optionalString(.requestID),
            epoch: try optionalString(.epoch), traceparent: try optionalString(.traceparent))
        event.specversion = try string(.specversion)
        event.datacontenttype = try optionalString(.datacontenttype)
        guard !event.id.isEmpty, !event.type.isEmpty, event.sequence >= 1, !event.service.isEmpty else {
            throw EventDecodingError(detail: "an event needs an id, a type, a source and a sequence of at least 1")
        }
        return event
    }

    /// The event as Tally publishes it: what `TallyJSON` writes from its
    /// `Encodable` form, written member by member, since every event is written at least twice
    /// (its service publishes it, the notifier forwards it). `CloudEventTests` and the `events`
    /// fuzz target hold the two equal. Empty when `data` holds a number that is not finite.
    public func encoded() -> Data {
        // Members in sorted key order; nil optionals left out, as `Encodable` leaves them out.
        JSONMembers.object(reservingCapacity: 384) { members, out in
            try members.value("data", data, into: &out)
            members.optionalString("datacontenttype", datacontenttype, into: &out)
            members.optionalString("epoch", epoch, into: &out)
            members.string("id", id, into: &out)
            members.optionalString("requestid", requestID, into: &out)
            members.integer("sequence", sequence, into: &out)
            members.string("source", source, into: &out)
            members.string("specversion", specversion, into: &out)
            members.optionalString("subject", subject, into: &out)
            members.string("time", time, into: &out)
            members.optionalString("traceparent", traceparent, into: &out)
            members.string("type", type, into: &out)
        }
    }
}

/// An event that does not keep the contract.
public struct EventDecodingError: Error, CustomStringConvertible {
    public let detail: String
    public var description: String { detail }
}
