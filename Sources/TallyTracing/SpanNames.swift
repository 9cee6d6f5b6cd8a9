import Tracing

/// The names and attributes Tally's spans share, after OpenTelemetry's semantic conventions for
/// RPC (a request: `rpc.system` `tally`, `rpc.service`, `rpc.method`) and messaging (an event
/// or an alert: `messaging.system` `zeromq`), so a tracing backend groups them as it does any
/// other system's.
public enum SpanNames {
    /// A request's span name, `<service>/<method>`, such as `shopping/mark_purchased`.
    public static func request(_ command: String) -> String {
        guard let dot = command.firstIndex(of: ".") else { return command }
        return "\(command[..<dot])/\(command[command.index(after: dot)...])"
    }

    /// The RPC attributes of a request for `command`, and its envelope `id` when it has one.
    public static func setRequestAttributes(_ span: any Span, command: String, requestID: String?) {
        span.updateAttributes { attributes in
            attributes["rpc.system"] = "tally"
            if let dot = command.firstIndex(of: ".") {
                attributes["rpc.service"] = String(command[..<dot])
                attributes["rpc.method"] = String(command[command.index(after: dot)...])
            }
            if let requestID { attributes["tally.request_id"] = requestID }
        }
    }

    /// The outcome of a request: `ok`, or its error code, which marks the span as failed.
    public static func setOutcome(_ span: any Span, errorCode: String?) {
        span.attributes["tally.outcome"] = errorCode ?? "ok"
        if let errorCode { span.setStatus(SpanStatus(code: .error, message: errorCode)) }
    }
}
