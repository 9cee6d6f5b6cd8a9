import TallyProtocol
import TallyStorage
import TallyTracing
import Tracing

/// The worker's span of a request, the first middleware when tracing is on: a child of the
/// span the request names (the gateway's, passed in its REQUEST, else the envelope's
/// `traceparent`), covering authentication, the handler and its store work. The request goes on
/// with the span's own `traceparent`, so the events its change records (their CloudEvents
/// `traceparent`) are this span's children.
public struct RequestTracing: RequestMiddleware {
    let tracer: TallyTracer

    public init(tracer: TallyTracer) {
        self.tracer = tracer
    }

    public func respond(
        to request: Request, next: (Request) throws -> any Encodable & Sendable
    ) throws -> any Encodable & Sendable {
        let span = tracer.startSpan(
            SpanNames.request(request.context.command), kind: .server, traceparent: request.context.traceparent)
        defer { span.end() }
        SpanNames.setRequestAttributes(span, command: request.context.command, requestID: request.context.id)
        var traced = request
        traced.context.traceparent = tracer.traceparent(of: span) ?? request.context.traceparent
        do {
            let result = try next(traced)
            SpanNames.setOutcome(span, errorCode: nil)
            return result
        } catch let error as TallyError {
            SpanNames.setOutcome(span, errorCode: error.code.rawValue)
            throw error
        } catch {
            SpanNames.setOutcome(span, errorCode: ErrorCode.internal.rawValue)
            span.recordError(error)
            throw error
        }
    }
}

/// A change's transaction as a span of the request that made it, a child of the worker's span:
/// from when the change asks for its transaction to when the transaction holding it has
/// committed, so the span includes the wait for the group commit it joined and its sync to the
/// disk. `tally.transaction` says which kind (`group_commit`: shared with other threads'
/// changes; `shared`: a batch's, committed after the batch's last change) and
/// `tally.transaction.changes` how many changes it held. A change no traced request made (a
/// service's own) is not traced.
public struct TransactionTracing: TransactionObserver {
    let tracer: TallyTracer

    public init(tracer: TallyTracer) {
        self.tracer = tracer
    }

    public func begin(_ request: ChangeRequest, service: String, shared: Bool) -> @Sendable (TransactionOutcome) -> Void {
        guard let traceparent = request.traceparent else { return { _ in } }
        let span = tracer.startSpan("transaction \(service)", kind: .internal, traceparent: traceparent)
        span.updateAttributes { attributes in
            attributes["tally.transaction"] = shared ? "shared" : "group_commit"
            attributes["tally.command"] = request.command
        }
        return { outcome in
            if outcome.changes > 0 { span.updateAttributes { $0["tally.transaction.changes"] = outcome.changes } }
            if let failure = outcome.failure {
                span.recordError(failure)
                span.setStatus(SpanStatus(code: .error))
            }
            span.end()
        }
    }
}
