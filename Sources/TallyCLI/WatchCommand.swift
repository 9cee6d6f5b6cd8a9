import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import TallyLifecycle
import TallyNotifier
import TallyProtocol
import ZeroMQ

struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Show alerts as they happen: the stored ones after --since first, then live ones.",
        discussion: """
            Subscribes to the notifier first, then fetches stored alerts (alerts.list) and shows
            each alert once, in sequence order, with no gap at the seam. Keeps going when the
            notifier restarts, fetching whatever it missed. Coloured lines on a terminal; one JSON
            object per line when piped or with --json. Ctrl-C or SIGTERM stops it.
            Example: tally watch --since 0 --topic alert.price
            """)

    @Option(help: "Show only alerts whose topic (alert.<kind>) or kind starts with this.")
    var topic: String = "alert."

    @Option(help: "Show stored alerts after this sequence first (0: all of them); without it, only new alerts.")
    var since: Int64?

    @Flag(help: "One JSON object per line, even on a terminal.")
    var json = false

    @Option(help: "The notifier's PUB endpoint. Env: TALLY_ALERTS_ENDPOINT.")
    var alertsEndpoint: String = NotifierDefaults.alertsEndpoint

    @Option(help: "The gateway's client endpoint, for alerts.list. Env: TALLY_GATEWAY_FRONTEND.")
    var endpoint: String = EnvironmentDefaults.frontend

    @Option(help: "Milliseconds each alerts.list call waits. Env: TALLY_CALL_TIMEOUT_MS.")
    var timeoutMs: Int = EnvironmentDefaults.callTimeoutMilliseconds

    @OptionGroup var curve: CurveOptions

    @Option(help: .hidden)
    var parentPid: Int32?

    func validate() throws {
        if let since, since < 0 { throw ValidationError("--since must be 0 or more") }
        guard timeoutMs >= 10 else { throw ValidationError("--timeout-ms must be at least 10") }
    }

    func run() async throws {
        let asJSON = json || isatty(STDOUT_FILENO) != 1
        let watcher = AlertWatcher(
            alertsEndpoint: alertsEndpoint, gatewayEndpoint: endpoint, since: since, topicPrefix: topic,
            callTimeout: .milliseconds(timeoutMs), alertsCurve: try curve.notifier(), gatewayCurve: try curve.gateway())
        var logger = Logger(label: "tally.watch")
        logger.logLevel = .warning
        let options = try ProcessOptions.parse(["--log-level", "warning"] + (parentPid.map { ["--parent-pid", "\($0)"] } ?? []))
        try await options.runServices([WatchService(watcher: watcher, asJSON: asJSON)], logger: logger)
    }
}

/// `tally watch` as a service of the process's ServiceGroup, so SIGINT and SIGTERM end it cleanly.
struct WatchService: Service {
    let watcher: AlertWatcher
    let asJSON: Bool

    func run() async throws {
        let context = try ZMQContext()
        try await DedicatedThread.runUntilShutdown(name: "tally-watch") { [watcher, asJSON] stop in
            try watcher.run(
                context: context, stop: stop,
                show: { alert in FileHandle.standardOutput.write(Data((Self.line(alert, asJSON: asJSON) + "\n").utf8)) },
                warn: { message in FileHandle.standardError.write(Data("tally watch: \(message)\n".utf8)) },
                ready: { after in
                    FileHandle.standardError.write(Data("tally watch: showing alerts after #\(after)\n".utf8))
                    ReadinessNotifier.shared.ready(status: "showing alerts after #\(after)")
                })
        }
    }

    static func line(_ alert: Alert, asJSON: Bool) -> String {
        if asJSON { return String(decoding: alert.encoded(), as: UTF8.self) }
        let colour =
            switch alert.kind {
            case "price_higher": "\u{1B}[31m"  // red
            case "price_lower": "\u{1B}[32m"  // green
            default: "\u{1B}[36m"  // cyan
            }
        let dim = "\u{1B}[2m", bold = "\u{1B}[1m", reset = "\u{1B}[0m"
        return "\(dim)#\(alert.sequence) \(alert.time)\(reset) \(colour)\(alert.kind)\(reset) \(bold)\(alert.owner)\(reset) \(alert.text)"
    }
}
