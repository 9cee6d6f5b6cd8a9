import ArgumentParser
import Foundation
import Logging
import Prometheus
import ServiceLifecycle
import Synchronization
import TallyClient
import TallyLifecycle
import TallyObservability
import TallyProtocol
import TallyTracing
import UnixSignals

/// Options every long-running process shares.
struct ProcessOptions: ParsableArguments {
    @Option(help: EnvironmentDefaults.logLevel.help("Log level: trace, debug, info, notice, warning, error, critical."))
    var logLevel: String = EnvironmentDefaults.logLevel.value

    @Option(help: EnvironmentDefaults.logFormat.help("Log format: text (for people) or json (one object per line, for log shippers)."))
    var logFormat: LogFormat = EnvironmentDefaults.logFormat.value

    @Option(
        help: EnvironmentDefaults.metricsAddress.help("""
            Serve GET /metrics (Prometheus) and GET /ready over HTTP on HOST:PORT, e.g. 0.0.0.0:9464; 'off' serves \
            nothing (the default).
            """))
    var metrics: String = EnvironmentDefaults.metricsAddress.value

    @Option(
        help: EnvironmentDefaults.cpuScheduling.help("""
            How Linux schedules this process's threads: batch (SCHED_BATCH: a woken thread waits for its turn instead of \
            preempting, so each wake-up finds more messages; more requests a second on a busy host) or normal (leave them \
            as started). A process started under another policy (chrt, systemd's CPUSchedulingPolicy=) keeps it.
            """))
    var cpuScheduling: CPUScheduling = EnvironmentDefaults.cpuScheduling.value

    @Option(
        help: EnvironmentDefaults.tracingEndpoint.help("""
            Export OpenTelemetry traces over OTLP/HTTP to this collector, e.g. http://127.0.0.1:4318 (spans go to \
            /v1/traces); 'off' (the default) traces nothing. The standard OTEL_* variables (OTEL_SERVICE_NAME, \
            OTEL_TRACES_SAMPLER, OTEL_EXPORTER_OTLP_*) adjust it once on.
            """))
    var tracingEndpoint: String = EnvironmentDefaults.tracingEndpoint.value

    @Option(
        help: EnvironmentDefaults.tracingSampleRatio.help("""
            The share of new traces exported, 0 to 1 (a request that brings a traceparent follows its caller's \
            sampling decision).
            """))
    var tracingSampleRatio: Double = EnvironmentDefaults.tracingSampleRatio.value

    @Option(help: .hidden)
    var parentPid: Int32?

    enum LogFormat: String, ExpressibleByArgument, CaseIterable, Sendable {
        case text, json
    }

    func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
        guard metrics == "off" || HTTPAddress(metrics) != nil else {
            throw ValidationError("--metrics must be HOST:PORT (e.g. 0.0.0.0:9464) or off")
        }
        guard (0...1).contains(tracingSampleRatio) else { throw ValidationError("--tracing-sample-ratio must be from 0 to 1") }
        guard tracingEndpoint == "off" || tracingEndpoint.hasPrefix("http://") || tracingEndpoint.hasPrefix("https://") else {
            throw ValidationError("--tracing-endpoint must be an http:// or https:// URL (OTLP/HTTP), or off")
        }
    }

    /// Where metrics are served, or nil when they are off.
    var metricsAddress: HTTPAddress? { metrics == "off" ? nil : HTTPAddress(metrics) }

    /// Sets up swift-log once per process (stderr, one line or JSON object per entry) and, with
    /// `--metrics`, swift-metrics with the Prometheus registry `runServices` serves, and applies
    /// `--cpu-scheduling`; returns a logger. Call it first, before anything makes a metric or
    /// starts a thread.
    func bootstrap(label: String) -> Logger {
        let level = Logger.Level(rawValue: logLevel) ?? .info
        let format = logFormat
        LoggingSystem.bootstrap { label in
            switch format {
            case .text:
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            case .json:
                var handler = JSONLogHandler(label: label)
                handler.logLevel = level
                return handler
            }
        }
        if metricsAddress != nil {
            Self.registry.withLock { $0 = PrometheusExport.bootstrap() }
        }
        let logger = Logger(label: label)
        switch cpuScheduling.apply() {
        case .batch(let threads): logger.debug("threads scheduled as SCHED_BATCH", metadata: ["threads": .stringConvertible(threads)])
        case .unchanged, .unsupported: break
        case .keptStartingPolicy(let policy):
            logger.info("kept the scheduling policy the process was started with", metadata: ["policy": "\(policy)"])
        case .refused(let code):
            logger.warning(
                "could not schedule threads as SCHED_BATCH; they run as started", metadata: ["error": "\(String(cString: strerror(code)))"])
        }
        return logger
    }

    /// The registry `bootstrap` made, for `runServices` to serve.
    private static let registry = Mutex<PrometheusCollectorRegistry?>(nil)

    /// The process's tracer when `--tracing-endpoint` is set, else nil (tracing off); its exporter
    /// runs as one of `runServices`' services. Call it once, after `bootstrap`.
    func startTracing(serviceName: String, logger: Logger) throws -> TallyTracer? {
        guard tracingEndpoint != "off" else { return nil }
        let (tracer, exporter) = try TracingConfiguration(
            endpoint: tracingEndpoint, serviceName: serviceName, sampleRatio: tracingSampleRatio
        ).start(logger: logger)
        Self.tracingExporter.withLock { $0 = exporter }
        logger.info("tracing on", metadata: ["endpoint": "\(tracingEndpoint)", "sample_ratio": "\(tracingSampleRatio)"])
        return tracer
    }

    /// The span exporter `startTracing` made, for `runServices` to run.
    private static let tracingExporter = Mutex<(any Service)?>(nil)

    /// Runs `services` until SIGTERM or SIGINT, shutting them down gracefully. When started by a
    /// supervisor (`tally up`, or a test), also stops if that parent goes away, so no process is
    /// ever left behind. `readiness` (sd_notify) hears when shutdown begins.
    func runServices(_ services: [any Service], readiness: Readiness? = nil, logger: Logger) async throws {
        // A service group stops its services in reverse order, each after the one behind it has
        // returned: the HTTP endpoint comes first so that it stops last, and `/ready` answers 503
        // (after `ShutdownAnnouncer`) for as long as the process drains, instead of going silent
        // at SIGTERM; a load balancer sees the drain rather than a dead port.
        var configured: [ServiceGroupConfiguration.ServiceConfiguration] = []
        if let address = metricsAddress, let registry = Self.registry.withLock({ $0 }) {
            // Bound here, before any service starts, so the port listens before the process says it is ready.
            configured.append(.init(service: try await MetricsEndpoint.bind(address, registry: registry, logger: logger)))
        }
        // Before the process's own services, so that it stops after them and exports the spans of their drain.
        if let exporter = Self.tracingExporter.withLock({ $0 }) { configured.append(.init(service: exporter)) }
        configured += services.map { .init(service: $0) }
        if let readiness {
            configured.append(.init(service: ShutdownAnnouncer(readiness: readiness), successTerminationBehavior: .ignore))
        }
        let parent = parentPid ?? ParentWatchdog.parentFromEnvironment
        if let parent {
            configured.append(.init(service: ParentWatchdog(parent: parent), successTerminationBehavior: .gracefullyShutdownGroup))
        }
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: configured, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}

extension CPUScheduling: ExpressibleByArgument {}

/// The gateway a client command talks to, and how patiently.
struct ConnectionOptions: ParsableArguments {
    @Option(
        help: EnvironmentDefaults.frontend.help("""
            The gateway's client endpoint; several gateways' endpoints separated by commas to fail over between them \
            (each try after a silent one goes to the next).
            """))
    var endpoint: String = EnvironmentDefaults.frontend.value

    @Option(help: EnvironmentDefaults.callTimeoutMilliseconds.help("Milliseconds to wait for each try; also the request's deadline."))
    var timeoutMs: Int = EnvironmentDefaults.callTimeoutMilliseconds.value

    @OptionGroup var curve: CurveOptions

    func validate() throws {
        guard (1...Envelope.maximumDeadlineMilliseconds).contains(timeoutMs) else {
            throw ValidationError("--timeout-ms must be from 1 to \(Envelope.maximumDeadlineMilliseconds)")
        }
        _ = try EndpointList.parse(endpoint, option: "--endpoint")
    }

    /// The gateways, in the order tried. (`endpoint`, as given, names the set of them, such as
    /// where a login is stored.)
    var endpoints: [String] { (try? EndpointList.parse(endpoint, option: "--endpoint")) ?? [endpoint] }

    /// A client of the gateway, trying each request `tries` times. One try (the default) for a
    /// login or a refresh: sent twice, they would start two sessions, or end one.
    func client(tries: Int = 1) throws -> TallyClient {
        try TallyClient(endpoints: endpoints, timeout: .milliseconds(timeoutMs), tries: tries, curve: try curve.gateway())
    }

    /// The deadline to send, a little under the client's timeout.
    var deadlineMs: Int { TallyClient.deadline(forTimeout: .milliseconds(timeoutMs)).roundedUpMilliseconds }

    /// Runs `body`; no reply from the gateway exits 2.
    func send<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as ClientError {
            FileHandle.standardError.write(Data("tally: \(error)\n".utf8))
            throw ExitCode(2)
        }
    }
}

/// Heartbeat settings, which the gateway and its workers must agree on.
struct HeartbeatOptions: ParsableArguments {
    @Option(help: EnvironmentDefaults.heartbeatMilliseconds.help("Heartbeat interval in milliseconds."))
    var heartbeatMs: Int = EnvironmentDefaults.heartbeatMilliseconds.value

    @Option(help: EnvironmentDefaults.liveness.help("Heartbeats missed before the peer is taken for dead."))
    var liveness: Int = EnvironmentDefaults.liveness.value

    func validate() throws {
        guard heartbeatMs >= 10 else { throw ValidationError("--heartbeat-ms must be at least 10") }
        guard liveness >= 1 else { throw ValidationError("--liveness must be at least 1") }
    }

    var interval: Duration { .milliseconds(heartbeatMs) }

    /// The same settings as flags, for child processes.
    var arguments: [String] { ["--heartbeat-ms", "\(heartbeatMs)", "--liveness", "\(liveness)"] }
}

/// Sends `STOPPING=1` when graceful shutdown begins, so a supervisor knows the process is on its way out.
struct ShutdownAnnouncer: Service {
    let readiness: Readiness

    func run() async throws {
        try? await gracefulShutdown()
        readiness.stopping()
    }
}

/// Says on standard error why a command could not do its work, and gives the exit status (1) to
/// throw: for failures of the work itself, where ArgumentParser's `ValidationError` would print
/// the usage as if the command line were wrong.
func commandFailure(_ command: String, _ message: String) -> ExitCode {
    FileHandle.standardError.write(Data("tally \(command): \(message)\n".utf8))
    return ExitCode(1)
}
