/// What a handler knows about the request besides its args.
public struct RequestContext: Sendable {
    public var id: String?
    public var command: String
    public var locale: String?
    public var idempotencyKey: String?
    public var token: String?
    /// Who is asking, once the authentication middleware has verified `token`; nil for a caller
    /// without one (allowed only on open commands).
    public var caller: Caller?

    public init(
        id: String? = nil, command: String, locale: String? = nil, idempotencyKey: String? = nil, token: String? = nil,
        caller: Caller? = nil
    ) {
        self.id = id
        self.command = command
        self.locale = locale
        self.idempotencyKey = idempotencyKey
        self.token = token
        self.caller = caller
    }

    public init(envelope: Envelope) {
        self.init(
            id: envelope.id, command: envelope.command, locale: envelope.locale,
            idempotencyKey: envelope.idempotencyKey, token: envelope.token)
    }
}

extension RequestContext {
    /// The caller, for a handler that acts on the caller's own data; `unauthenticated` when the
    /// request has none (a command registered `.open` that still wants to know who asks).
    public func requireCaller() throws(TallyError) -> Caller {
        guard let caller else {
            throw TallyError(
                .unauthenticated, "\(command) needs a signed-in caller: send an access token in the envelope's token (tally login, then tally call)",
                field: "token")
        }
        return caller
    }
}
