import Metrics
import Prometheus

/// swift-metrics' factory for Prometheus, as swift-prometheus' `PrometheusMetricsFactory` makes
/// metrics (a counter as a counter, a timer as a duration histogram, an aggregating recorder as a
/// value histogram, any other recorder or meter as a gauge), but each with its `# HELP` line from
/// `MetricHelp`. Why not that factory itself: it registers every metric with empty help, and the
/// registry refuses a second registration of a name with other help, so the text can only be given
/// where the metric is registered.
struct DescribedMetricsFactory: MetricsFactory {
    let registry: PrometheusCollectorRegistry
    let durationBuckets: [Duration]
    let valueBuckets: [Double]

    /// The metric named `label`, with its help text (none for a name `MetricHelp` lacks).
    private func described(_ label: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: label, unitName: "", helpText: MetricHelp.texts[label] ?? "")
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        registry.makeCounter(descriptor: described(label), labels: dimensions)
    }

    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        registry.makeCounter(descriptor: described(label), labels: dimensions)
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        guard aggregate else { return registry.makeGauge(descriptor: described(label), labels: dimensions) }
        return registry.makeValueHistogram(descriptor: described(label), labels: dimensions, buckets: valueBuckets)
    }

    func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        registry.makeGauge(descriptor: described(label), labels: dimensions)
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        registry.makeDurationHistogram(descriptor: described(label), labels: dimensions, buckets: durationBuckets)
    }

    func destroyCounter(_ handler: any CounterHandler) {
        if let counter = handler as? Prometheus.Counter { registry.unregisterCounter(counter) }
    }

    func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {
        if let counter = handler as? Prometheus.Counter { registry.unregisterCounter(counter) }
    }

    func destroyRecorder(_ handler: any RecorderHandler) {
        switch handler {
        case let gauge as Prometheus.Gauge: registry.unregisterGauge(gauge)
        case let histogram as ValueHistogram: registry.unregisterValueHistogram(histogram)
        default: break
        }
    }

    func destroyMeter(_ handler: any MeterHandler) {
        if let gauge = handler as? Prometheus.Gauge { registry.unregisterGauge(gauge) }
    }

    func destroyTimer(_ handler: any TimerHandler) {
        if let histogram = handler as? DurationHistogram { registry.unregisterDurationHistogram(histogram) }
    }
}
