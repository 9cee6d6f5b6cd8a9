import Logging
import OTel
import ServiceLifecycle
import Tracing

/// How a process exports its spans: where (an OTLP/HTTP collector), under which service name,
/// and what share of new traces it keeps. Tracing is off unless an endpoint is given; then the
/// standard `OTEL_*` variables swift-otel reads (`OTEL_SERVICE_NAME`, `OTEL_TRACES_SAMPLER`,
/// `OTEL_TRACES_SAMPLER_ARG`, `OTEL_EXPORTER_OTLP_*`, `OTEL_BSP_*`) still adjust it, as they
/// would any OpenTelemetry SDK.
public struct TracingConfiguration: Sendable {
    /// The collector's OTLP/HTTP base address, such as `http://127.0.0.1:4318` (spans go to
    /// `/v1/traces` under it).
    public var endpoint: String
    /// `service.name` of the spans: `tally-gateway`, `tally-shopping`, `tally-notifier`.
    public var serviceName: String
    /// The share of new traces kept, 0 to 1; a request that arrives with a trace context follows
    /// its caller's decision (parent-based sampling).
    public var sampleRatio: Double

    public init(endpoint: String, serviceName: String, sampleRatio: Double = 1) {
        self.endpoint = endpoint
        self.serviceName = serviceName
        self.sampleRatio = sampleRatio
    }

    /// The tracer, and the service that exports its spans: run that service in the process's
    /// group (first, so that it stops last and exports the spans of the drain too).
    public func start(logger: Logger) throws -> (tracer: TallyTracer, service: any Service) {
        var configuration = OTel.Configuration.default
        configuration.serviceName = serviceName
        configuration.diagnosticLogger = .custom(logger)
        configuration.metrics.enabled = false
        configuration.logs.enabled = false
        configuration.traces.enabled = true
        configuration.traces.exporter = .otlp
        configuration.traces.otlpExporter.endpoint = endpoint
        configuration.traces.otlpExporter.protocol = .httpProtobuf
        configuration.traces.sampler = .parentBasedTraceIDRatio(ratio: sampleRatio) ?? .parentBasedAlwaysOn
        let backend = try OTel.makeTracingBackend(configuration: configuration)
        return (TallyTracer(backend.factory), backend.service)
    }
}
