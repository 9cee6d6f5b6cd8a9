import Foundation
import Logging
import Metrics
import TallyProtocol

/// Turns one request body into one reply body for a service: decode the envelope once, find the
/// command, pass it through the middleware (in order) to its handler, encode the reply. Never
/// throws and never traps on input: whatever arrives, the client gets a reply.
public struct RequestProcessor: Sendable {
    public let handler: any ServiceHandler
    private let middleware: [any RequestMiddleware]
    private let maximumMessageBytes: Int
    private let metrics: WorkerMetrics
    let logger: Logger

    public init(
        handler: any ServiceHandler, middleware: [any RequestMiddleware] = [], maximumMessageBytes: Int = 256 * 1024,
        logger: Logger
    ) {
        self.handler = handler
        self.middleware = middleware
        self.maximumMessageBytes = maximumMessageBytes
        self.logger = logger
        metrics = WorkerMetrics(service: handler.serviceName, commands: handler.descriptions.map(\.name))
    }

    /// Runs one request and counts it (by command and reply code) and its time.
    public func process(_ body: [Data]) -> Data {
        let started = ContinuousClock.now
        let (id, command, error, reply) = outcome(of: body)
        let elapsed = ContinuousClock.now - started
        metrics.command(command).record(error: error, duration: elapsed)
        // Evaluated only at debug level: with the gateway's line, one request can be followed by its id.
        logger.debug(
            "answered", metadata: ["request_id": "\(id ?? "")", "command": "\(command ?? "")", "code": "\(error?.rawValue ?? "ok")", "elapsed": "\(elapsed)"])
        return reply
    }

    private func outcome(of body: [Data]) -> (id: String?, command: String?, error: ErrorCode?, reply: Data) {
        guard body.count == 1, let frame = body.first else {
            return (nil, nil, .invalidArgument, Reply.failure(id: nil, error: .invalidArgument("a request carries exactly one body frame, not \(body.count)")))
        }
        guard frame.count <= maximumMessageBytes else {
            let error = TallyError(.resourceExhausted, "the request is \(frame.count) bytes; the limit is \(maximumMessageBytes)")
            return (nil, nil, error.code, Reply.failure(id: nil, error: error))
        }
        let envelope: Envelope
        do {
            envelope = try Envelope.decode(frame)
        } catch {
            let id = EnvelopeHead.recoverID(from: frame)
            return (id, nil, error.code, Reply.failure(id: id, error: error))
        }
        let (error, reply) = outcome(of: envelope)
        return (envelope.id, envelope.command, error, reply)
    }

    public func process(_ envelope: Envelope) -> Data {
        outcome(of: envelope).reply
    }

    private func outcome(of envelope: Envelope) -> (error: ErrorCode?, reply: Data) {
        guard let command = handler.command(named: envelope.command) else {
            let message =
                envelope.service == handler.serviceName
                ? "unknown command '\(envelope.command)'; \(handler.serviceName) serves \(handler.descriptions.map(\.name).joined(separator: ", "))"
                : "this worker serves '\(handler.serviceName)', not '\(envelope.service)'"
            return (.unimplemented, Reply.failure(id: envelope.id, error: TallyError(.unimplemented, message, field: "command")))
        }
        do {
            let request = Request(
                envelope: envelope, command: command.description, args: try Arguments(envelope.args),
                context: RequestContext(envelope: envelope))
            let result = try run(request, through: middleware[...], command)
            return (nil, try Reply.success(id: envelope.id, result: result))
        } catch let error as TallyError {
            return (error.code, Reply.failure(id: envelope.id, error: error))
        } catch {
            logger.error(
                "command failed", metadata: ["command": "\(envelope.command)", "request_id": "\(envelope.id ?? "")", "error": "\(error)"])
            return (.internal, Reply.failure(id: envelope.id, error: TallyError(.internal, "\(envelope.command) failed inside the service; the error has been logged")))
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
