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
/// logging, metrics. A middleware may change the request (set its caller), answer it itself by
/// throwing a `TallyError` (`unauthenticated`), or call `next` and look at what comes back.
public protocol RequestMiddleware: Sendable {
    func respond(
        to request: Request, next: (Request) throws -> any Encodable & Sendable
    ) throws -> any Encodable & Sendable
}
