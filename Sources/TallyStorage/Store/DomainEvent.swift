import TallyProtocol

/// Something that happened to a service's state, recorded with the change that made it happen
/// (`Change.record`) and published as a CloudEvent once that change commits.
///
/// Each service declares its events as types conforming to this: the event's JSON is its `data`.
public protocol DomainEvent: Encodable, Sendable {
    /// The CloudEvent type, `<service>.<what happened>`: `shopping.item_added`.
    var type: String { get }
    /// What the event is about, owner first: `ann/3`. The notifier reads the owner from it.
    var subject: String? { get }
}

/// Where committed events go next: the worker's publisher, in a running service.
public protocol EventSink: Sendable {
    /// Called after the transaction that recorded `events` has committed, on the committing thread.
    func publish(_ events: [CloudEvent])
}
