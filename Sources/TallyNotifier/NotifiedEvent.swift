import Foundation
import TallyProtocol

/// One domain event as a worker publishes it and `<service>.events` returns it: CloudEvents 1.0
/// JSON plus `sequence`, the service's gap-free, strictly increasing outbox number.
///
/// The notifier reads the wire format itself (rather than a worker-side type) so that it accepts
/// events from any publisher that keeps the contract, in any language.
public struct NotifiedEvent: Codable, Sendable, Equatable {
    public var specversion: String
    public var id: String
    /// `tally/<service>`.
    public var source: String
    /// `<service>.<event_name>`, such as `shopping.price_changed`.
    public var type: String
    public var time: String
    public var subject: String?
    public var datacontenttype: String?
    public var sequence: Int64
    public var data: JSONValue

    public init(
        specversion: String = "1.0", id: String, source: String, type: String, time: String,
        subject: String? = nil, datacontenttype: String? = "application/json", sequence: Int64, data: JSONValue
    ) {
        self.specversion = specversion
        self.id = id
        self.source = source
        self.type = type
        self.time = time
        self.subject = subject
        self.datacontenttype = datacontenttype
        self.sequence = sequence
        self.data = data
    }

    /// The service whose sequence this event carries: `source` without `tally/`, else the
    /// first word of `type`. Progress, gaps and catch-up are kept per service.
    public var service: String {
        if source.hasPrefix("tally/"), source.count > "tally/".count { return String(source.dropFirst("tally/".count)) }
        return String(type.prefix(while: { $0 != "." }))
    }

    /// Decodes one event, checking what the notifier relies on.
    public static func decode(_ data: Data) throws -> NotifiedEvent {
        let event = try JSONDecoder().decode(NotifiedEvent.self, from: data)
        guard !event.id.isEmpty, !event.type.isEmpty, event.sequence >= 1, !event.service.isEmpty else {
            throw EventDecodingError(detail: "an event needs an id, a type, a source and a sequence of at least 1")
        }
        return event
    }

    public func encoded() -> Data { (try? JSONEncoder.tally.encode(self)) ?? Data() }
}

public struct EventDecodingError: Error, CustomStringConvertible {
    public let detail: String
    public var description: String { detail }
}
