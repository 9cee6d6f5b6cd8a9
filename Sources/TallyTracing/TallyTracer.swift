import Tracing

/// The one tracer of a process, and W3C trace context in and out of Tally's carriers (an
/// envelope's `traceparent`, the gateway's REQUEST frame, an event's `traceparent`).
///
/// Held as an optional by what traces (`nil`: tracing is off), so a request pays one branch and
/// nothing else when it is off.
public final class TallyTracer: Sendable {
    private let tracer: any Tracer

    public init(_ tracer: any Tracer) {
        self.tracer = tracer
    }

    /// Starts a span whose parent is the W3C context in `traceparent` (and `tracestate`), or a
    /// new trace's root without one.
    public func startSpan(_ name: String, kind: SpanKind, traceparent: String?, tracestate: String? = nil) -> any Span {
        var context = ServiceContext.topLevel
        if let traceparent {
            var carrier = ["traceparent": traceparent]
            if let tracestate { carrier["tracestate"] = tracestate }
            tracer.extract(carrier, into: &context, using: TraceCarrier())
        }
        return tracer.startSpan(name, context: context, ofKind: kind)
    }

    /// Starts a span as a child of `parent`, in the same process.
    public func startSpan(_ name: String, kind: SpanKind, parent: any Span) -> any Span {
        tracer.startSpan(name, context: parent.context, ofKind: kind)
    }

    /// The W3C `traceparent` that makes a span the parent of work elsewhere.
    public func traceparent(of span: any Span) -> String? {
        var carrier: [String: String] = [:]
        tracer.inject(span.context, into: &carrier, using: TraceCarrier())
        return carrier["traceparent"]
    }
}

/// W3C trace context as a dictionary of its two headers, for `Instrument.inject` and `extract`.
struct TraceCarrier: Injector, Extractor {
    func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) {
        carrier[key] = value
    }

    func extract(key: String, from carrier: [String: String]) -> String? {
        carrier[key]
    }
}
