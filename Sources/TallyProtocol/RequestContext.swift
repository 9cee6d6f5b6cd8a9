/// What a handler knows about the request besides its args.
public struct RequestContext: Sendable {
    public var id: String?
    public var command: String
    public var locale: String?
    public var idempotencyKey: String?
    public var token: String?
    /// Who is asking, once the authentication middleware has verified `token`; always nil for an
    /// open command. A handler that needs a caller is handed it as a parameter (`CommandTable`).
    public var caller: Caller?
    /// The W3C `traceparent` of the span the request's work belongs to: the envelope's (or the
    /// gateway's, 6.1), then the worker's own handling span once the tracing middleware has
    /// started it. The events a change records carry it.
    public var traceparent: String?

    public init(
        id: String? = nil, command: String, locale: String? = nil, idempotencyKey: String? = nil, token: String? = nil,
        caller: Caller? = nil, traceparent: String? = nil
    ) {
        self.id = id
        self.command = command
        self.locale = locale
        self.idempotencyKey = idempotencyKey
        self.token = token
        self.caller = caller
        self.traceparent = traceparent
    }

    public init(envelope: Envelope) {
        self.init(
            id: envelope.id, command: envelope.command, locale: envelope.locale,
            idempotencyKey: envelope.idempotencyKey, token: envelope.token, traceparent: envelope.traceparent)
    }
}
