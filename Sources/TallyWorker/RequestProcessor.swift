import Foundation
import Logging
import TallyProtocol
import TallyStorage

/// Turns one request body into one reply body for a service: decode the envelope once, find the
/// command, pass it through the middleware (in order, then `AccessControl`) to its handler,
/// encode the reply, and tell every middleware what became of it (`RequestMiddleware.answered(_:)`,
/// exactly once per reply: that is where replies are counted and logged). Never throws and never
/// traps on input: whatever arrives, the client gets a reply.
public struct RequestProcessor: Sendable {
    public let handler: any ServiceHandler
    private let middleware: [any RequestMiddleware]
    private let maximumMessageBytes: Int
    /// Where a command's own failure (an error that is not the API's) is logged, since its reply
    /// says only `internal`.
    let logger: Logger

    public init(
        handler: any ServiceHandler, middleware: [any RequestMiddleware] = [], maximumMessageBytes: Int = 256 * 1024,
        logger: Logger
    ) {
        self.handler = handler
        // Last, always: who may run a command is checked for every worker, whatever its chain.
        self.middleware = middleware + [AccessControl(authority: handler.callerAuthority)]
        self.maximumMessageBytes = maximumMessageBytes
        self.logger = logger
    }

    /// Runs one request.
    public func process(_ body: [Data]) -> Data {
        let started = ContinuousClock.now
        return finish(read(body), since: started).reply
    }

    /// Runs requests that arrived together, handing each reply to `answer` (with the request's
    /// index, and its error code when it is an error reply) as soon as it may go: a query's at once, a change's only after the commit that
    /// holds it. With a `ServiceHandler.sharedTransactionStore`, two or more changes among them
    /// run in one transaction (`ServiceStore.commitTogether`), and if it cannot commit, each is
    /// answered with the commit's error instead of the result it had. Queries (and requests that
    /// cannot be read) run first, outside that transaction.
    /// `traceparents`, when given, holds for each request the trace context the gateway passed in
    /// its REQUEST (its own span, 6.1): it takes the place of the envelope's `traceparent`.
    public func process(
        _ bodies: [[Data]], traceparents: [Data?] = [], answer: (Int, Data, ErrorCode?) throws -> Void
    ) rethrows {
        let started = ContinuousClock.now
        var requests = bodies.map(read)
        for (index, frame) in traceparents.enumerated() {
            if let frame, case .envelope(var envelope) = requests[index] {
                envelope.traceparent = String(decoding: frame, as: UTF8.self)
                requests[index] = .envelope(envelope)
            }
        }
        let store = handler.sharedTransactionStore
        var changes = store == nil ? [] : requests.indices.filter { index in
            guard case .envelope(let envelope) = requests[index] else { return false }
            return handler.command(named: envelope.command)?.description.kind == .change
        }
        if changes.count < 2 { changes = [] }
        for (index, request) in requests.enumerated() where !changes.contains(index) {
            let outcome = finish(request, since: started)
            try answer(index, outcome.reply, outcome.error)
        }
        guard let store, !changes.isEmpty else { return }
        var outcomes: [Int: Outcome] = [:]
        let deadlines = changes.map { index -> ContinuousClock.Instant? in
            guard case .envelope(let envelope) = requests[index] else { return nil }
            return Self.deadline(of: envelope, from: started)
        }
        let failure = StorageDeadline.$current.withValue(StorageDeadline.latest(deadlines)) {
            store.commitTogether {
                // Whole again on every run: an engine may run it twice (see `commitTogether`).
                outcomes = [:]
                for index in changes {
                    if case .envelope(let envelope) = requests[index] { outcomes[index] = outcome(of: envelope, since: started) }
                }
            }
        }
        for index in changes {
            guard case .envelope(let envelope) = requests[index] else { continue }
            let answered: Outcome
            if let failure, outcomes[index]?.error == nil {
                // Nothing of the batch took effect: a change that had succeeded must not say so.
                answered = outcome(of: envelope, failure: failure)
            } else {
                // Always there once the transaction committed.
                answered = outcomes[index] ?? outcome(of: envelope, failure: TallyError(.internal, "\(envelope.command) was not run"))
            }
            tell(answered, since: started)
            try answer(index, answered.reply, answered.error)
        }
    }

    /// What became of one request: the reply, and what the middleware is told of it.
    private struct Outcome {
        var id: String?
        var command: String?
        var error: ErrorCode?
        var reply: Data
    }

    /// A request's envelope, or the answer to a request that could not be read.
    private enum ReadRequest {
        case envelope(Envelope)
        case answered(Outcome)
    }

    private func finish(_ request: ReadRequest, since started: ContinuousClock.Instant) -> Outcome {
        let outcome: Outcome
        switch request {
        case .envelope(let envelope): outcome = self.outcome(of: envelope, since: started)
        case .answered(let answered): outcome = answered
        }
        tell(outcome, since: started)
        return outcome
    }

    /// Tells every middleware, innermost first, what became of a request whose reply is final
    /// (`RequestMiddleware.answered(_:)`). Every path to a reply passes here exactly once.
    private func tell(_ outcome: Outcome, since started: ContinuousClock.Instant) {
        let answered = AnsweredRequest(id: outcome.id, command: outcome.command, error: outcome.error, elapsed: ContinuousClock.now - started)
        for middleware in middleware.reversed() { middleware.answered(answered) }
    }

    /// Reads a request's envelope, or answers why it cannot be read.
    private func read(_ body: [Data]) -> ReadRequest {
        guard body.count == 1, let frame = body.first else {
            return .answered(Outcome(
                id: nil, command: nil, error: .invalidArgument,
                reply: Reply.failure(id: nil, error: .invalidArgument("a request carries exactly one body frame, not \(body.count)"))))
        }
        guard frame.count <= maximumMessageBytes else {
            let error = TallyError(.resourceExhausted, "the request is \(frame.count) bytes; the limit is \(maximumMessageBytes)")
            return .answered(Outcome(id: nil, command: nil, error: error.code, reply: Reply.failure(id: nil, error: error)))
        }
        do {
            return .envelope(try Envelope.decode(frame))
        } catch {
            let id = EnvelopeHead.recoverID(from: frame)
            return .answered(Outcome(id: id, command: nil, error: error.code, reply: Reply.failure(id: id, error: error)))
        }
    }

    /// Runs one request already read.
    public func process(_ envelope: Envelope) -> Data {
        finish(.envelope(envelope), since: .now).reply
    }

    /// When the client (through the gateway) stops waiting for `envelope`, counted from when this
    /// worker took it: a bound on its database work (`StorageDeadline`). Nil without `deadline_ms`.
    private static func deadline(of envelope: Envelope, from started: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        envelope.deadlineMs.map { started + .milliseconds($0) }
    }

    private func outcome(of envelope: Envelope, since started: ContinuousClock.Instant) -> Outcome {
        guard let command = handler.command(named: envelope.command) else {
            let message =
                envelope.service == handler.serviceName
                ? "unknown command '\(envelope.command)'; \(handler.serviceName) serves \(handler.descriptions.map(\.name).joined(separator: ", "))"
                : "this worker serves '\(handler.serviceName)', not '\(envelope.service)'"
            return Outcome(
                id: envelope.id, command: envelope.command, error: .unimplemented,
                reply: Reply.failure(id: envelope.id, error: TallyError(.unimplemented, message, field: "command")))
        }
        do {
            let request = Request(
                command: command.description, args: try Arguments(envelope.args), context: RequestContext(envelope: envelope))
            let result = try StorageDeadline.$current.withValue(Self.deadline(of: envelope, from: started)) {
                try run(request, through: middleware[...], command)
            }
            return Outcome(id: envelope.id, command: envelope.command, error: nil, reply: try Reply.success(id: envelope.id, result: result))
        } catch {
            return outcome(of: envelope, failure: error)
        }
    }

    /// The reply to `envelope` when `error` stopped it: the error itself when it is the API's,
    /// else `internal`, logged with what happened.
    private func outcome(of envelope: Envelope, failure error: any Error) -> Outcome {
        if let error = error as? TallyError {
            return Outcome(id: envelope.id, command: envelope.command, error: error.code, reply: Reply.failure(id: envelope.id, error: error))
        }
        logger.error(
            "command failed", metadata: ["command": "\(envelope.command)", "request_id": "\(envelope.id ?? "")", "error": "\(error)"])
        let reply = Reply.failure(
            id: envelope.id, error: TallyError(.internal, "\(envelope.command) failed inside the service; the error has been logged"))
        return Outcome(id: envelope.id, command: envelope.command, error: .internal, reply: reply)
    }

    /// Passes `request` through the middleware in order, and the last one to the command.
    private func run(
        _ request: Request, through middleware: ArraySlice<any RequestMiddleware>, _ command: BoundCommand
    ) throws -> any Encodable & Sendable {
        guard let first = middleware.first else { return try command.run(request.args, request.context) }
        return try first.respond(to: request) { try run($0, through: middleware.dropFirst(), command) }
    }
}
