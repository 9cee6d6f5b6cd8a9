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

/// The data of one kind of event: its JSON is the event's `data`, and it knows what the event is
/// about (`subject`).
public protocol EventPayload: Encodable, Sendable {
    /// What the event is about, owner first: `ann/3`.
    var subject: String? { get }
}

/// A service's events, written one way in every service: an enum with a case per event type,
/// each carrying its payload. The enum writes each type name once (`type`) and hands out its
/// payload (`payload`); the subject and the data are the payload's.
///
/// ```swift
/// enum ShoppingEvent: ServiceEvent {
///     case listCreated(ListCreated)
///     var type: String { switch self { case .listCreated: "shopping.list_created" } }
///     var payload: any EventPayload { switch self { case .listCreated(let data): data } }
/// }
/// ```
public protocol ServiceEvent: DomainEvent {
    var payload: any EventPayload { get }
}

extension ServiceEvent {
    public var subject: String? { payload.subject }

    public func encode(to encoder: Encoder) throws {
        try payload.encode(to: encoder)
    }
}
