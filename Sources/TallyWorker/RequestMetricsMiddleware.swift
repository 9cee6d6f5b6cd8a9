import Metrics
import TallyProtocol

/// Counts and times every reply of a worker (swift-metrics; exported by whatever backend the
/// process bootstrapped), from `answered(_:)`, so requests that never reach a handler are counted
/// too, and changes that commit together are counted by what their replies finally said:
///
/// - `tally_worker_requests_total{service,command,code}`: replies by code (`ok` or the error code).
/// - `tally_worker_request_duration_seconds{service,command}`: from the body received to the reply encoded.
///
/// Every metric object is made when the worker starts, one set per command of its table (and
/// `other` for names the table does not have, and requests that could not be read), so the worker
/// threads share an immutable table and counting a reply takes no lock and allocates nothing.
public struct RequestMetricsMiddleware: RequestMiddleware {
    private let commands: [String: CommandMetrics]
    private let other: CommandMetrics

    /// The metrics of `service`'s commands, `commands` being every name its table has.
    public init(service: String, commands names: [String]) {
        var commands: [String: CommandMetrics] = [:]
        for name in names { commands[name] = CommandMetrics(service: service, command: name) }
        self.commands = commands
        other = CommandMetrics(service: service, command: "other")
    }

    /// The metrics of `handler`'s commands.
    public init(handler: any ServiceHandler) {
        self.init(service: handler.serviceName, commands: handler.descriptions.map(\.name))
    }

    public func answered(_ request: AnsweredRequest) {
        (request.command.flatMap { commands[$0] } ?? other).record(error: request.error, duration: request.elapsed)
    }

    /// The counters and timer of one command.
    private struct CommandMetrics: Sendable {
        private let ok: Counter
        private let errors: [ErrorCode: Counter]
        private let duration: Metrics.Timer

        init(service: String, command: String) {
            func counter(_ code: String) -> Counter {
                Counter(label: "tally_worker_requests_total", dimensions: [("service", service), ("command", command), ("code", code)])
            }
            ok = counter("ok")
            var errors: [ErrorCode: Counter] = [:]
            for code in ErrorCode.allCases { errors[code] = counter(code.rawValue) }
            self.errors = errors
            duration = Metrics.Timer(
                label: "tally_worker_request_duration_seconds", dimensions: [("service", service), ("command", command)])
        }

        /// Counts one reply: nil `error` for a success.
        func record(error: ErrorCode?, duration elapsed: Duration) {
            if let error { errors[error]?.increment() } else { ok.increment() }
            duration.record(duration: elapsed)
        }
    }
}
