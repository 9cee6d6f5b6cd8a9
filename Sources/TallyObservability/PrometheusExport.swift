import Metrics
import Prometheus

/// Sends every swift-metrics metric of the process to one Prometheus registry, whose text format
/// the metrics endpoint serves. Instrumented code uses only the swift-metrics API, so another
/// backend can be plugged in here without touching it; a process that exports no metrics
/// bootstraps nothing and its metrics cost next to nothing (swift-metrics' no-op handlers).
public enum PrometheusExport {
    /// Bootstraps swift-metrics with a Prometheus factory that gives every metric its `# HELP`
    /// line (`MetricHelp`); call once per process, before any metric is made. Returns the
    /// registry to serve.
    public static func bootstrap() -> PrometheusCollectorRegistry {
        let registry = PrometheusCollectorRegistry()
        let factory = DescribedMetricsFactory(
            registry: registry,
            // Tally's requests take from tens of microseconds (calc) to tens of milliseconds (a
            // commit on a slow disk); swift-prometheus' default buckets start at 5 ms and would
            // hide most of them.
            durationBuckets: [
                .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2),
                .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
                .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
            ],
            // Value histograms count things: changes per transaction, at most 64 (GroupCommit).
            valueBuckets: [1, 2, 4, 8, 16, 32, 64, 128])
        MetricsSystem.bootstrap(factory)
        return registry
    }
}
