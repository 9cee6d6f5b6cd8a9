import Foundation
import Logging
import TallyProtocol

/// Turns one request body into one reply body for a service: decode the envelope once, find the
/// command, run it, encode the reply. Never throws and never traps on input: whatever arrives,
/// the client gets a reply.
public struct RequestProcessor: Sendable {
    public let handler: any ServiceHandler
    private let commands: CommandTable
    private let maximumMessageBytes: Int
    let logger: Logger

    public init(handler: any ServiceHandler, maximumMessageBytes: Int = 256 * 1024, logger: Logger) {
        self.handler = handler
        self.commands = handler.commands
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
        guard let command = commands.handler(for: envelope.command) else {
            let message =
                envelope.service == handler.serviceName
                ? "unknown command '\(envelope.command)'; \(handler.serviceName) serves \(commands.names.joined(separator: ", "))"
                : "this worker serves '\(handler.serviceName)', not '\(envelope.service)'"
            return Reply.failure(id: envelope.id, error: TallyError(.unimplemented, message, field: "command"))
        }
        do {
            let args = try Arguments(envelope.args)
            let result = try command(args, RequestContext(envelope: envelope))
            return try Reply.success(id: envelope.id, result: result)
        } catch let error as TallyError {
            return Reply.failure(id: envelope.id, error: error)
        } catch {
            logger.error("command failed", metadata: ["command": "\(envelope.command)", "error": "\(error)"])
            return Reply.failure(id: envelope.id, error: TallyError(.internal, "\(envelope.command) failed inside the service; the error has been logged"))
        }
    }
}
