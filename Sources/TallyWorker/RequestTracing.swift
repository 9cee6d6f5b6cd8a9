import TallyProtocol
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
