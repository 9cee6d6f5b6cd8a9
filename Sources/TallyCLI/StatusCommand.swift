import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import TallyClient
import TallyLifecycle
import TallyProtocol
import TallyTerminal
import ZeroMQ

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the services, their workers, queues, rates and latency, and the notifier's lag, live.",
        discussion: """
            On a terminal: a view refreshed every --interval-ms (as top does), of each service's live and \
            busy workers, queued requests, requests and errors per second, totals, and the 50th, 90th \
            and 99th percentile of handling time over the last minute (system.services), then how many \
            events the notifier is behind per source (alerts.status). q quits (so does Ctrl-C); any \
            other key refreshes at once. When standard output is not a terminal, or with --once: the \
            same table once, without rates (they need two samples). --json prints one JSON object \
            instead: {"gateway": <system.services>, "notifier": <alerts.status> or null, \
            "notifier_error": {...} when null}. Exits 2 when the gateway does not answer.

            Example: tally status --endpoint tcp://gateway:5555
            """)

    @OptionGroup var connection: ConnectionOptions

    @Flag(help: "Print the table once and exit, even on a terminal.")
    var once = false

    @Flag(help: "Print one JSON object and exit.")
    var json = false

    @Option(help: "Milliseconds between refreshes of the live view.")
    var intervalMs: Int = 1000

    func validate() throws {
        guard intervalMs >= 100 else { throw ValidationError("--interval-ms must be at least 100") }
    }

    func run() async throws {
        let source = StatusSource(
            requester: LazyPirateRequester(
                context: try ZMQContext(), endpoints: connection.endpoints, timeout: .milliseconds(connection.timeoutMs), tries: 1,
                curve: try connection.curve.gateway()),
            deadlineMs: connection.deadlineMs)
        guard !once, !json, isatty(STDOUT_FILENO) == 1 else {
            let sample = try await connection.send { try await DedicatedThread.run(name: "tally-status") { try source.fetch(stop: nil) } }
            FileHandle.standardOutput.write(try Self.oneShot(sample, asJSON: json, endpoint: connection.endpoint))
            return
        }
        var logger = Logger(label: "tally.status")
        logger.logLevel = .warning
        let view = StatusView(source: source, interval: .milliseconds(intervalMs), endpoint: connection.endpoint)
        // The view ends the process when it returns (q), and SIGINT or SIGTERM end the view.
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [.init(service: view, successTerminationBehavior: .gracefullyShutdownGroup)],
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }

    /// The one-shot output: the table as plain text, or the sample as JSON (indented on a terminal,
    /// one line when piped).
    static func oneShot(_ sample: StatusSample, asJSON: Bool, endpoint: String) throws -> Data {
        if asJSON {
            let body = try TallyJSON.encode(sample)
            return (isatty(STDOUT_FILENO) == 1 ? JSONIndenter.indent(body) : body) + Data("\n".utf8)
        }
        let title = "gateway \(endpoint), up \(StatusTable.duration(milliseconds: sample.gateway.uptimeMs))"
        let lines = [title, ""] + StatusTable(sample: sample, previous: nil, showsRates: false).lines().map(\.text)
        return Data(lines.map { $0 + "\n" }.joined().utf8)
    }
}

/// The live view, as a service of the process's ServiceGroup so that SIGINT (Ctrl-C) and SIGTERM
/// end it cleanly: on a thread of its own, it samples, draws, and waits for the next refresh or
/// a key, until `q` or the group's shutdown; the terminal is put back either way.
struct StatusView: Service {
    let source: StatusSource
    let interval: Duration
    let endpoint: String

    func run() async throws {
        try await DedicatedThread.runUntilShutdown(name: "tally-status") { [self] stop in
            let terminal = LiveTerminal()
            defer { terminal.restore() }
            let clock = ContinuousClock()
            var previous: StatusSample?
            var shown: (sample: StatusSample, at: Date)?
            var trouble: String?
            terminal.draw(frame(nil, previous: nil, trouble: nil))
            while !stop.isFired {
                let started = clock.now
                do {
                    let sample = try source.fetch(stop: stop)
                    (previous, shown, trouble) = (shown?.sample, (sample, Date()), nil)
                } catch ClientError.noReply {
                    if stop.isFired { break }
                    trouble = "no reply from the gateway within \(source.requester.timeout.roundedUpMilliseconds) ms; asking again"
                } catch {
                    if stop.isFired { break }
                    trouble = "\(error)"
                }
                terminal.draw(frame(shown, previous: previous, trouble: trouble))
                let keys = terminal.keys(waitingAtMost: max(.zero, interval - (clock.now - started)), stop: stop.fileDescriptor)
                if keys.contains(UInt8(ascii: "q")) || keys.contains(UInt8(ascii: "Q")) { return }
            }
        }
    }

    /// The header, the table of the last sample (if any came), and what went wrong with the
    /// latest; a table from an earlier refresh is dimmed and says when it is from.
    private func frame(_ shown: (sample: StatusSample, at: Date)?, previous: StatusSample?, trouble: String?) -> [StyledLine] {
        let now = Date().formatted(date: .omitted, time: .standard)
        let uptime = trouble == nil ? shown.map { ", up \(StatusTable.duration(milliseconds: $0.sample.gateway.uptimeMs))" } ?? "" : ""
        var lines = [
            StyledLine(text: "tally status: gateway \(endpoint)\(uptime), \(now), every \(interval.roundedUpMilliseconds) ms; q quits", style: .bold),
            StyledLine(text: ""),
        ]
        guard let shown else {
            return lines + [StyledLine(text: trouble ?? "asking the gateway", style: trouble == nil ? .plain : .alarm)]
        }
        var table = StatusTable(sample: shown.sample, previous: previous, showsRates: true).lines()
        if let trouble {
            let then = shown.at.formatted(date: .omitted, time: .standard)
            lines += [StyledLine(text: "\(trouble); below, the last answer, from \(then)", style: .alarm), StyledLine(text: "")]
            table = table.map { StyledLine(text: $0.text, style: .dim) }
        }
        return lines + table
    }
}
