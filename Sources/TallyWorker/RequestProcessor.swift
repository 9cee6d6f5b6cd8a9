import Foundation
import Logging
import TallyProtocol

/// Turns one request body into one reply body for a service: decode the envelope once, find the
/// command, pass it through the middleware (in order) to its handler, encode the reply. Never
/// throws and never traps on input: whatever arrives, the client gets a reply.
public struct RequestProcessor: Sendable {
    public let handler: any ServiceHandler
    private let middleware: [any RequestMiddleware]
    private let maximumMessageBytes: Int
    let logger: Logger

    public init(
        handler: any ServiceHandler, middleware: [any RequestMiddleware] = [], maximumMessageBytes: Int = 256 * 1024,
        logger: Logger
    ) {
        self.handler = handler
        self.middleware = middleware
        self.maximumMessageBytes = maximumMessageBytes
        self.logger = logger
    }

    public func process(_ body: [Data]) -> Data {
        guard body.count == 1, let frame = body.first else {
            return Reply.failure(id: nil, error: .invalidArgument("a request carries exactly one body frame, not \(body.count)"))
        }
        guard frame.count <= maximumMessageBytes else {
            return Reply.failure(
                id: nil,
                error: TallyError(.resourceExhausted, "the request is \(frame.count) bytes; the limit is \(maximumMessageBytes)"))
        }
        let envelope: Envelope
        do {
            envelope = try Envelope.decode(frame)
        } catch {
            return Reply.failure(id: EnvelopeHead.recoverID(from: frame), error: error)
        }
        return process(envelope)
    }

    public func process(_ envelope: Envelope) -> Data {
        guard let command = handler.command(named: envelope.command) else {
            let message =
                envelope.service == handler.serviceName
                ? "unknown command '\(envelope.command)'; \(handler.serviceName) serves \(handler.descriptions.map(\.name).joined(separator: ", "))"
                : "this worker serves '\(handler.serviceName)', not '\(envelope.service)'"
            return Reply.failure(id: envelope.id, error: TallyError(.unimplemented, message, field: "command"))
        }
        do {
            let request = Request(
                envelope: envelope, command: command.description, args: try Arguments(envelope.args),
                context: RequestContext(envelope: envelope))
            let result = try run(request, through: middleware[...], command)
            return try Reply.success(id: envelope.id, result: result)
        } catch let error as TallyError {
            return Reply.failure(id: envelope.id, error: error)
        } catch {
            logger.error("command failed", metadata: ["command": "\(envelope.command)", "error": "\(error)"])
            return Reply.failure(id: envelope.id, error: TallyError(.internal, "\(envelope.command) failed inside the service; the error has been logged"))
        }
    }

    /// Passes `request` through the middleware in order, and the last one to the command.
    private func run(
        _ request: Request, through middleware: ArraySlice<any RequestMiddleware>, _ command: BoundCommand
    ) throws -> any Encodable & Sendable {
        guard let first = middleware.first else {
            // Fail closed: a command that needs a caller never runs without one, even in a worker
            // whose chain has no authentication.
            guard request.command.access == .open || request.context.caller != nil else {
                throw TallyError(.unauthenticated, "\(request.command.name) needs a signed-in caller, and this worker checks no tokens", field: "token")
            }
            return try command.run(request.args, request.context)
        }
        return try first.respond(to: request) { try run($0, through: middleware.dropFirst(), command) }
    }
}
