import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import TallyAuth
import TallyClient
import TallyLifecycle
import TallyProtocol
import ZeroMQ

struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Show your alerts as they happen: the stored ones after --since first, then live ones.",
        discussion: """
            Shows the alerts of the signed-in user (tally login, or --token): subscribes to the \
            notifier for them first, then fetches stored ones (alerts.list) and shows each alert \
            once, in sequence order, with no gap at the seam. Keeps going when the notifier \
            restarts, fetching whatever it missed. An admin sees everyone's with --all-owners. \
            Coloured lines on a terminal; one JSON object per line when piped or with --json. \
            Ctrl-C or SIGTERM stops it.

            Example: tally watch --since 0 --topic alert.price
            """)

    @Option(help: "Show only alerts whose kind starts with this (alert.price or price: price_higher and price_lower).")
    var topic: String = "alert."

    @Option(help: "Show stored alerts after this sequence first (0: all of them); without it, only new ones.")
    var since: Int64?

    @Flag(help: "Show everyone's alerts, not only yours (needs the admin role).")
    var allOwners = false

    @Flag(help: "One JSON object per line, even on a terminal.")
    var json = false

    @Option(help: EnvironmentDefaults.alertsEndpoint.help("The notifier's PUB endpoint."))
    var alertsEndpoint: String = EnvironmentDefaults.alertsEndpoint.value

    /// The gateway alerts.list goes to (stored alerts, and what a restarted notifier missed).
    @OptionGroup var connection: ConnectionOptions

    @OptionGroup var token: TokenOption

    @Option(help: .hidden)
    var parentPid: Int32?

    func validate() throws {
        if let since, since < 0 { throw ValidationError("--since must be 0 or more") }
    }

    func run() async throws {
        let asJSON = json || isatty(STDOUT_FILENO) != 1
        let fixedToken = token.token
        let logins = LoginStore.standard
        // Whose alerts: the user the token names. Read without verifying it, only to subscribe to
        // their topic; alerts.list, which checks the token, decides what is shown.
        guard let current = try fixedToken ?? logins.login(for: connection.endpoint)?.accessToken else {
            throw Self.failure("it shows the alerts of the signed-in user: log in first (tally login NAME), or pass --token (or TALLY_TOKEN)")
        }
        guard let claims = AccessTokenClaims.unverified(from: current) else {
            throw Self.failure("the token is not a Tally access token; log in again (tally login NAME)")
        }
        let context = try ZMQContext()
        let requester = LazyPirateRequester(
            context: context, endpoints: connection.endpoints, timeout: .milliseconds(connection.timeoutMs), tries: 1,
            curve: try connection.curve.gateway())
        var watcher = AlertWatcher(
            alertsEndpoint: alertsEndpoint, gatewayEndpoint: connection.endpoint, owner: allOwners ? nil : claims.subject, since: since,
            topicPrefix: topic, callTimeout: .milliseconds(connection.timeoutMs), alertsCurve: try connection.curve.notifier(),
            gatewayCurve: try connection.curve.gateway()
        ) { [endpoint = connection.endpoint] in
            try fixedToken ?? logins.accessToken(for: endpoint, requester: requester)
        }
        watcher.gatewayEndpoints = requester.endpoints
        var logger = Logger(label: "tally.watch")
        logger.logLevel = .warning
        let options = try ProcessOptions.parse(["--log-level", "warning"] + (parentPid.map { ["--parent-pid", "\($0)"] } ?? []))
        try await options.runServices([WatchService(watcher: watcher, context: context, since: since, asJSON: asJSON)], logger: logger)
    }

    /// Says why the watch cannot run, on standard error, and exits 1.
    static func failure(_ message: String) -> ExitCode {
        commandFailure("watch", message)
    }
}

/// `tally watch` as a service of the process's ServiceGroup, so SIGINT and SIGTERM end it cleanly.
struct WatchService: Service {
    let watcher: AlertWatcher
    let context: ZMQContext
    /// `--since`: where the stored alerts shown start, if any are.
    let since: Int64?
    let asJSON: Bool

    func run() async throws {
        try await DedicatedThread.runUntilShutdown(name: "tally-watch") { [self] stop in
            do {
                try watch(stop)
            } catch let error as TallyError {
                // Refused for good (everyone's alerts without the admin role): say why and stop.
                throw WatchCommand.failure(error.message)
            }
        }
    }

    private func watch(_ stop: WakeupSignal) throws {
        // The alerts shown before the watch knew where it starts: the stored ones this person may
        // see that match the topic, which can be none of those stored.
        var shown = (count: 0, sequences: nil as ClosedRange<Int64>?)
        var started = false
        try watcher.run(
            context: context, stop: stop,
            show: { alert in
                if !started {
                    shown.count += 1
                    shown.sequences = shown.sequences.map { $0.lowerBound...alert.sequence } ?? alert.sequence...alert.sequence
                }
                FileHandle.standardOutput.write(Data((Self.line(alert, asJSON: asJSON) + "\n").utf8))
            },
            warn: { message in FileHandle.standardError.write(Data("tally watch: \(message)\n".utf8)) },
            ready: { [since] after in
                started = true
                FileHandle.standardError.write(Data("tally watch: \(Self.startLine(since: since, caughtUpTo: after, shown: shown.count, sequences: shown.sequences))\n".utf8))
                ReadinessNotifier.shared.ready(status: "new alerts follow, after #\(after)")
            })
    }

    /// Where the watch stands once the stored alerts are shown: alert sequence numbers are the
    /// notifier's, counted from 1 over every owner's alerts; `--since N` shows those after N, and
    /// `shown` is how many it did show, the first and last of them `sequences` (a person sees only
    /// their own, so the notifier's latest number says nothing about how many that was).
    static func startLine(since: Int64?, caughtUpTo last: Int64, shown: Int, sequences: ClosedRange<Int64>?) -> String {
        guard let since else { return "new alerts follow (the latest stored alert is #\(last))" }
        guard let sequences else { return "no stored alerts to show after #\(since); new alerts follow" }
        if shown == 1 { return "1 stored alert shown, #\(sequences.lowerBound); new alerts follow" }
        return "\(shown) stored alerts shown, #\(sequences.lowerBound) to #\(sequences.upperBound); new alerts follow"
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
