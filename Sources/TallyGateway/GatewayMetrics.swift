import Metrics
import TallyProtocol

/// The gateway's metrics (swift-metrics; exported by whatever backend the process bootstrapped):
///
/// - `tally_gateway_requests_total{service,command,outcome}`: requests answered, by outcome:
///   `ok`, `error` (the worker answered an error), or the code of an answer the gateway wrote
///   itself (`unavailable`, `deadline_exceeded`, `resource_exhausted`).
/// - `tally_gateway_request_duration_seconds{service,command}`: from accepted to answered.
/// - `tally_gateway_queue_depth{service}`, `tally_gateway_live_workers{service}`.
/// - `tally_gateway_redispatches_total{service}`: requests sent to a second worker after the first left.
/// - `tally_gateway_deadline_expiries_total{service}`: requests answered at their deadline.
///
/// Only the broker's thread uses it, so its caches take no lock; each metric object is made once
/// (per command, per service) and reused, so recording a request allocates nothing. Commands
/// outside the catalog are counted as `other`, so no client can grow the label set.
final class GatewayMetrics {
    private let catalog: CommandCatalog
    private var commands: [String: CommandMetrics] = [:]
    private var services: [String: ServiceMetrics] = [:]

    init(catalog: CommandCatalog) {
        self.catalog = catalog
        // Made up front, so every service shows (at zero) before its first request.
        for service in catalog.workerServices { _ = self.service(service) }
    }

    func service(_ name: String) -> ServiceMetrics {
        if let metrics = services[name] { return metrics }
        let metrics = ServiceMetrics(service: name)
        services[name] = metrics
        return metrics
    }

    /// The metrics of one command of `service`: nil `command` for a request whose body the gateway does not read.
    func command(_ command: String?, of service: String) -> CommandMetrics {
        if let command, let metrics = commands[command] { return metrics }
        if let command, let description = catalog.command(named: command), description.service == service {
            let metrics = CommandMetrics(service: service, command: command)
            commands[command] = metrics
            return metrics
        }
        return self.service(service).other
    }
}

/// One service's gauges and counters, and the metrics of its requests the catalog does not name.
final class ServiceMetrics {
    let queueDepth: Gauge
    let liveWorkers: Gauge
    let redispatches: Counter
    let deadlineExpiries: Counter
    lazy var other = CommandMetrics(service: service, command: "other")
    private let service: String

    init(service: String) {
        self.service = service
        let dimensions = [("service", service)]
        queueDepth = Gauge(label: "tally_gateway_queue_depth", dimensions: dimensions)
        liveWorkers = Gauge(label: "tally_gateway_live_workers", dimensions: dimensions)
        redispatches = Counter(label: "tally_gateway_redispatches_total", dimensions: dimensions)
        deadlineExpiries = Counter(label: "tally_gateway_deadline_expiries_total", dimensions: dimensions)
        queueDepth.record(0)
        liveWorkers.record(0)
    }
}

/// One command's request counter per outcome and its latency histogram.
final class CommandMetrics {
    let service: String
    let command: String
    let duration: Metrics.Timer
    private var outcomes: [String: Counter] = [:]

    init(service: String, command: String) {
        self.service = service
        self.command = command
        duration = Metrics.Timer(
            label: "tally_gateway_request_duration_seconds", dimensions: [("service", service), ("command", command)],
            preferredDisplayUnit: .seconds)
    }

    /// Counts one answered request; `duration` is nil for a request refused before it was queued.
    func record(outcome: String, duration elapsed: Duration?) {
        let counter: Counter
        if let existing = outcomes[outcome] {
            counter = existing
        } else {
            counter = Counter(
                label: "tally_gateway_requests_total",
                dimensions: [("service", service), ("command", command), ("outcome", outcome)])
            outcomes[outcome] = counter
        }
        counter.increment()
        if let elapsed { duration.record(duration: elapsed) }
    }
}
