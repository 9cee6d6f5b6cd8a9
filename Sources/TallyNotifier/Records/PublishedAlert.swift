import Foundation
import TallyClient
import TallyProtocol

/// The notifier's side of an alert: how it writes one for its PUB socket. Clients only read
/// alerts (through its `Codable` form); the publisher writes one per alert,
/// so it writes the members itself rather than through the `Encodable` form.
extension Alert {
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
