import Foundation
import TallyGateway
import TallyNotifier
import TallyTerminal

/// `tally status` as lines of text: a table of the services (workers, busy, queued, request and
/// error rates, totals, latency percentiles of the last minute), then the notifier's lag per
/// source. The live view and the one-shot output share it; only the live view has rates, which
/// need two samples: they are the change of the gateway's counters over the change of its uptime.
struct StatusTable {
    let sample: StatusSample
    /// The sample before, for rates; nil on the first frame (rates show `-`).
    let previous: StatusSample?
    /// Whether to have rate columns at all (not in one-shot output, which has one sample).
    let showsRates: Bool

    func lines() -> [StyledLine] {
        serviceLines() + [StyledLine(text: "")] + notifierLines()
    }

    // MARK: Services

    private static let serviceWidth = 12

    private func serviceLines() -> [StyledLine] {
        var header = [pad("SERVICE", Self.serviceWidth, left: true), pad("WORKERS", 8), pad("BUSY", 5), pad("QUEUED", 7)]
        if showsRates { header += [pad("REQ/S", 8), pad("ERR/S", 8)] }
        header += [pad("REQUESTS", 10), pad("ERRORS", 8), pad("P50 ms", 10), pad("P90 ms", 10), pad("P99 ms", 10)]
        var lines = [StyledLine(text: header.joined(separator: " "), style: .bold)]
        let rates = self.rates()
        for row in sample.gateway.services {
            var cells = [
                pad(row.name, Self.serviceWidth, left: true), pad("\(row.workers)", 8), pad("\(row.busy)", 5), pad("\(row.queued)", 7),
            ]
            if showsRates {
                let rate = rates?[row.name]
                cells += [pad(rate.map { Self.rate($0.requests) } ?? "-", 8), pad(rate.map { Self.rate($0.errors) } ?? "-", 8)]
            }
            cells += [
                pad("\(row.requests)", 10), pad("\(row.errors)", 8), pad(Self.milliseconds(row.recent.p50Ms), 10),
                pad(Self.milliseconds(row.recent.p90Ms), 10), pad(Self.milliseconds(row.recent.p99Ms), 10),
            ]
            let style: StyledLine.Style = row.workers == 0 ? .alarm : row.queued > 0 ? .warning : .plain
            lines.append(StyledLine(text: cells.joined(separator: " "), style: style))
        }
        let window = sample.gateway.recentWindowMs / 1000
        lines.append(StyledLine(
            text: "percentiles: handling time of the requests answered in the last \(window) s; REQUESTS and ERRORS since the gateway started",
            style: .dim))
        return lines
    }

    /// Requests and errors per second, by service, between the previous sample and this one;
    /// nil without a previous sample, or when the gateway restarted in between (its counters
    /// started again from zero).
    func rates() -> [String: (requests: Double, errors: Double)]? {
        guard let previous, sample.gateway.uptimeMs > previous.gateway.uptimeMs else { return nil }
        let seconds = Double(sample.gateway.uptimeMs - previous.gateway.uptimeMs) / 1000
        let before = Dictionary(previous.gateway.services.map { ($0.name, $0) }) { first, _ in first }
        var rates: [String: (requests: Double, errors: Double)] = [:]
        for row in sample.gateway.services {
            let earlier = before[row.name]
            let requests = row.requests - (earlier?.requests ?? 0)
            let errors = row.errors - (earlier?.errors ?? 0)
            guard requests >= 0, errors >= 0 else { return nil }
            rates[row.name] = (Double(requests) / seconds, Double(errors) / seconds)
        }
        return rates
    }

    // MARK: Notifier

    private func notifierLines() -> [StyledLine] {
        guard let notifier = sample.notifier else {
            return [StyledLine(text: "notifier: \(sample.notifierError?.message ?? "no answer")", style: .alarm)]
        }
        guard !notifier.sources.isEmpty else {
            return [StyledLine(text: "notifier: no events handled yet; last alert #\(notifier.lastAlertSequence)")]
        }
        var lines = [StyledLine(
            text: [pad("NOTIFIER", Self.serviceWidth, left: true), pad("HANDLED", 10), pad("NEWEST", 10), pad("LAG", 8)].joined(separator: " "),
            style: .bold)]
        for source in notifier.sources {
            lines.append(StyledLine(
                text: [pad(source.service, Self.serviceWidth, left: true), pad("\(source.handledThrough)", 10),
                       pad("\(source.newestKnown)", 10), pad("\(source.lagEvents)", 8)].joined(separator: " "),
                style: source.lagEvents > 0 ? .warning : .plain))
        }
        lines.append(StyledLine(
            text: "LAG: events a service is known to have that the notifier has not handled yet; last alert #\(notifier.lastAlertSequence)",
            style: .dim))
        return lines
    }

    // MARK: Formatting

    private func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
        guard text.count < width else { return text }
        let padding = String(repeating: " ", count: width - text.count)
        return left ? text + padding : padding + text
    }

    static func rate(_ perSecond: Double) -> String {
        String(format: perSecond < 100 ? "%.1f" : "%.0f", perSecond)
    }

    static func milliseconds(_ value: Double?) -> String {
        guard let value else { return "-" }
        return String(format: value < 100 ? "%.3f" : value < 10_000 ? "%.1f" : "%.0f", value)
    }

    /// `1h02m`, `5m12s`, `42s`.
    static func duration(milliseconds: Int) -> String {
        let seconds = milliseconds / 1000
        if seconds >= 3600 { return String(format: "%dh%02dm", seconds / 3600, seconds % 3600 / 60) }
        if seconds >= 60 { return String(format: "%dm%02ds", seconds / 60, seconds % 60) }
        return "\(seconds)s"
    }
}
