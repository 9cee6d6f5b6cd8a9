import TallyProtocol

/// A request on its way to a command's handler: the command it names, its args, and what is known
/// about it (who is asking, once authenticated).
public struct Request: Sendable {
    public let command: CommandDescription
    public let args: Arguments
    public var context: RequestContext

    public init(command: CommandDescription, args: Arguments, context: RequestContext) {
        self.command = command
        self.args = args
        self.context = context
    }
}

/// Something every request of a worker passes through before (and after) its handler, in one
/// place, the way Hummingbird puts middleware in front of its routes: authentication, request
/// logging, metrics. It has two hooks, both with a default that does nothing, so a middleware
/// implements the one it needs:
///
/// - `respond(to:next:)` wraps the handler: a middleware may change the request (set its caller),
///   answer it itself by throwing a `TallyError` (`unauthenticated`), or call `next` and look at
///   what comes back. Only readable requests for a command of the service get here.
/// - `answered(_:)` hears how every reply ended, once it is final: see there.
///
/// `RequestProcessor` runs the chain in order, with `AccessControl` always last.
public protocol RequestMiddleware: Sendable {
    func respond(
        to request: Request, next: (Request) throws -> any Encodable & Sendable
    ) throws -> any Encodable & Sendable

    /// Told what became of a request, exactly once per reply, when its outcome is final and just
    /// before the reply is handed on to be sent: the place to count and log replies (or end a
    /// span), since `respond` cannot see them all. It hears of requests that never reach
    /// `respond` (a body that cannot be read, or is too big, or names a command the service does
    /// not have, or a caller refused by an earlier middleware), and, for changes that commit
    /// together (`RequestProcessor.process(_:answer:)`), the outcome after the commit: a change
    /// that succeeded inside a transaction that then failed is told the commit's error.
    ///
    /// Every middleware of the chain is told, innermost first (the order in which `respond`
    /// calls return). Called on the worker's thread, for every request: keep it cheap, and
    /// do not block.
    func answered(_ request: AnsweredRequest)
}

extension RequestMiddleware {
    /// Passes the request on unchanged: for a middleware that only watches replies.
    public func respond(
        to request: Request, next: (Request) throws -> any Encodable & Sendable
    ) throws -> any Encodable & Sendable {
        try next(request)
    }

    public func answered(_ request: AnsweredRequest) {}
}
