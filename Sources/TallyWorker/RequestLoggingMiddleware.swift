import Logging

/// Logs every reply of a worker at debug level as `answered`, with the request's id, command,
/// code and time: with the gateway's line about the same request, one request can be followed
/// through the system by its id. From `answered(_:)`, so requests that never reach a handler are
/// logged too, and changes that commit together with what their replies finally said.
///
/// The line's metadata is built only when the logger is at debug level: at the default level
/// this costs one level check per request.
public struct RequestLoggingMiddleware: RequestMiddleware {
    private let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
    }

    public func answered(_ request: AnsweredRequest) {
        logger.debug(
            "answered",
            metadata: [
                "request_id": "\(request.id ?? "")", "command": "\(request.command ?? "")", "code": "\(request.error?.rawValue ?? "ok")",
                "elapsed": "\(request.elapsed)",
            ])
    }
}
