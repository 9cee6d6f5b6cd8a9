import Foundation
import Histogram

/// One row's figures.
struct Figures {
    let inFlight: String
    let outcome: PipelinedLoad.Outcome
    /// The processes the row's CPU time is read from, in `ProcessCPU`'s order, when they are not
    /// the stack's (`ResultTable.processNames`): the bare relay's.
    var processes: [String]?
    var latency: Histogram<UInt64> { outcome.latency }
}

/// The table `tally-bench` prints: one row per path, throughput and latency, and each throughput
/// as a share of the bare relay's from the same run.
struct ResultTable {
    private enum Row {
        case measured(name: String, Figures, versusRelay: Bool, note: String?)
        case section(String)
        case placeholder(name: String, note: String)
    }

    let header: String
    /// The limit the other rows are compared with.
    var relay: Figures?
    /// Resident memory of the stack's processes, at rest and after the rows that loaded them.
    var memory: [(name: String, atRest: Int?, loaded: Int?)] = []
    /// The names of the processes a stack row's CPU time is read from, in `ProcessCPU`'s order:
    /// where each row's CPU goes, printed under the table (a row may name its own, `Figures.processes`).
    var processNames: [String] = []
    private var rows: [Row] = []

    init(header: String) { self.header = header }

    /// Adds a measured row and returns its measurement.
    @discardableResult
    mutating func add(_ name: String, _ measurement: Figures, versusRelay: Bool = false, note: String? = nil) -> Figures {
        rows.append(.measured(name: name, measurement, versusRelay: versusRelay, note: note))
        return measurement
    }

    mutating func section(_ title: String) { rows.append(.section(title)) }

    /// A row whose figure is not measured (yet), with why.
    mutating func placeholder(_ name: String, _ note: String) { rows.append(.placeholder(name: name, note: note)) }

    func print() {
        let columns = ["path", "in flight", "req/s", "p50 µs", "p99 µs", "CPU µs/req", "errors", "vs relay / note"]
        var lines: [[String]] = []
        var titles: [Int: String] = [:]
        for row in rows {
            switch row {
            case .measured(let name, let measurement, let versusRelay, let note):
                let outcome = measurement.outcome
                var remark = note ?? ""
                if versusRelay, let relay, relay.outcome.requestsPerSecond > 0 {
                    remark = String(format: "%.0f %% of the relay", 100 * outcome.requestsPerSecond / relay.outcome.requestsPerSecond)
                    if let cost = outcome.cpuMicrosecondsPerRequest, let limit = relay.outcome.cpuMicrosecondsPerRequest {
                        remark += String(format: " (%.0f %% by CPU per request)", 100 * limit / cost)
                    }
                }
                if let error = outcome.firstError { remark += (remark.isEmpty ? "" : "; ") + "first error: \(error.prefix(120))" }
                lines.append([
                    name, measurement.inFlight, Self.grouped(Int(outcome.requestsPerSecond.rounded())),
                    Self.grouped(Int(outcome.latency.valueAtPercentile(50))), Self.grouped(Int(outcome.latency.valueAtPercentile(99))),
                    outcome.cpuMicrosecondsPerRequest.map { String(format: "%.0f", $0) } ?? "?", "\(outcome.errors)", remark,
                ])
            case .section(let title):
                titles[lines.count] = title
            case .placeholder(let name, let note):
                lines.append([name, "", "—", "—", "—", "—", "", note])
            }
        }
        let widths = columns.indices.map { column in
            ([columns[column]] + lines.map { $0[column] }).map(\.count).max() ?? 0
        }
        func format(_ cells: [String]) -> String {
            let line = cells.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                // Text left, figures right.
                return column == 0 || column == cells.count - 1 ? cell + padding : padding + cell
            }.joined(separator: "  ")
            return String(line.reversed().drop { $0 == " " }.reversed())
        }
        Swift.print(header)
        Swift.print(format(columns))
        Swift.print(String(repeating: "-", count: widths.reduce(0, +) + 2 * (widths.count - 1)))
        for (index, line) in lines.enumerated() {
            if let title = titles[index] { Swift.print("-- \(title)") }
            Swift.print(format(line))
        }
        if let title = titles[lines.count] { Swift.print("-- \(title)") }
        func megabytes(_ bytes: Int?) -> String { bytes.map { String(format: "%.1f MB", Double($0) / 1_048_576) } ?? "?" }
        for process in memory {
            Swift.print("resident memory, \(process.name): \(megabytes(process.atRest)) at rest, \(megabytes(process.loaded)) after the calc.tip rows")
        }
        var shares: [String] = []
        for case .measured(let name, let measurement, _, _) in rows {
            let names = measurement.processes ?? processNames
            guard let used = measurement.outcome.cpuMicrosecondsPerRequestByProcess, used.count == names.count, used.count > 1 else { continue }
            let parts = zip(names, used).filter { $0.1 >= 0.5 }.map { "\($0.0) \(String(format: "%.0f", $0.1))" }
            shares.append("  \(name), \(measurement.inFlight): " + parts.joined(separator: ", "))
        }
        if !shares.isEmpty {
            Swift.print("CPU µs a request, by process (tally-bench is the load client, and the bare loop):")
            shares.forEach { Swift.print($0) }
        }
    }

    /// 12345 → "12,345".
    static func grouped(_ value: Int) -> String {
        let digits = String(value)
        var out = ""
        for (index, character) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(character)
        }
        return out
    }
}
