import Metrics
import TallyProtocol

/// A worker's metrics of the requests it runs (swift-metrics; exported by whatever backend the
/// process bootstrapped):
///
/// - `tally_worker_requests_total{service,command,code}`: replies by code (`ok` or the error code).
/// - `tally_worker_request_duration_seconds{service,command}`: from the body received to the reply encoded.
///
/// Every metric object is made when the worker starts, one set per command of its table (and
/// `other` for names the table does not have), so the worker threads share an immutable table
/// and recording a request takes no lock and allocates nothing.
struct WorkerMetrics: Sendable {
    private let commands: [String: CommandMetrics]
    private let other: CommandMetrics

    init(service: String, commands names: [String]) {
        var commands: [String: CommandMetrics] = [:]
        for name in names { commands[name] = CommandMetrics(service: service, command: name) }
        self.commands = commands
        other = CommandMetrics(service: service, command: "other")
    }

    func command(_ name: String?) -> CommandMetrics {
        name.flatMap { commands[$0] } ?? other
    }

    struct CommandMetrics: Sendable {
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
