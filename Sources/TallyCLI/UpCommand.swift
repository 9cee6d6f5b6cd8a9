import ArgumentParser
import TallyCatalog
import Foundation
import Logging
import TallyLifecycle
import TallyObservability
import TallyProcessSupervision

struct UpCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "up",
        abstract: "Run the whole stack on this machine: the gateway, one worker of each service and the notifier.",
        discussion: """
            Each process runs as a child of this one, its log lines prefixed with its name. A child that dies is restarted; one that exits 3 times in a row before it is ready (its port is taken, say) stops them all, and tally up exits non-zero with that child's last lines. Ctrl-C or SIGTERM stops them all. On its first run it makes a token-signing key pair in <data-dir>/keys (unless TALLY_SIGNING_KEY names one) and the notifier's service token, and with --admin a first admin.

            With --metrics HOST:PORT, tally up serves its own /metrics and a /ready that answers 200 once every child is ready at PORT, and each child serves its own /metrics and /ready at the next ports, in the order started: the gateway at PORT+1, then calc, accounts, currency, shopping, roster and identity workers, then the notifier at PORT+8 (the start log line lists them). Scrape them all.
            """)

    @OptionGroup var dataDirectory: DataDirectoryOption

    @OptionGroup var database: DatabaseOptions

    @OptionGroup var frontend: FrontendOption

    @OptionGroup var backend: BackendOption

    @OptionGroup var notifierEndpoints: NotifierEndpointOptions

    @OptionGroup var heartbeat: HeartbeatOptions

    @OptionGroup var threads: WorkerThreadOptions

    @Option(
        help: EnvironmentDefaults.adminUser.help("""
            Make this person an admin on start (if new: with the password in TALLY_ADMIN_PASSWORD, or one made up and printed once).
            """))
    var admin: String?

    @OptionGroup var passwordHashing: PasswordHashingOptions

    @OptionGroup var process: ProcessOptions

    func run() async throws {
        let logger = process.bootstrap(label: "tally.up")
        try FileManager.default.createDirectory(atPath: dataDirectory.path, withIntermediateDirectories: true)
        let data = try database.location(dataDirectory: dataDirectory.path)
        try UpBootstrap(dataDirectory: dataDirectory.path, data: data, passwordHashing: passwordHashing.parameters, logger: logger).run(admin: admin ?? EnvironmentDefaults.adminUser.value)
        // Children share the log, scheduling and tracing settings.
        let shared = heartbeat.arguments + [
            "--log-level", process.logLevel, "--log-format", process.logFormat.rawValue, "--cpu-scheduling", process.cpuScheduling.rawValue,
            "--tracing-endpoint", process.tracingEndpoint, "--tracing-sample-ratio", "\(process.tracingSampleRatio)",
        ]
        var children = [ChildSpec(name: "gateway", arguments: ["gateway", "--frontend", frontend.endpoint, "--backend", backend.endpoint] + shared)]
        for service in ServiceCatalog.all {
            let own = service == "identity" ? ["--password-cost", "\(passwordHashing.passwordCost)"] : []
            children.append(ChildSpec(
                name: service,
                arguments: ["worker", service, "--backend", backend.endpoint, "--data-dir", dataDirectory.path,
                            "--events-endpoint", notifierEndpoints.eventsEndpoint] + threads.arguments + own + shared))
        }
        children.append(ChildSpec(
            name: "notifier",
            arguments: ["notifier", "--frontend", frontend.endpoint, "--backend", backend.endpoint, "--data-dir", dataDirectory.path,
                        "--service-token-file", KeyOptions.notifierTokenFile(dataDirectory: dataDirectory.path)]
                + notifierEndpoints.arguments
                + shared))
        children = Self.servingMetrics(children, from: process.metricsAddress, logger: logger)
        logger.info("starting", metadata: ["frontend": "\(frontend.endpoint)", "data": "\(data.description)"])
        // The children's notification sockets: short paths (a Unix socket path has ~100 bytes),
        // private to this run of tally up.
        let runtimeDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("tally-up-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: runtimeDirectory) }
        let readiness = Readiness(parts: children.map(\.name))
        try await process.runServices(
            [ProcessSupervisor(children: children, environment: database.environment, runtimeDirectory: runtimeDirectory, readiness: readiness, logger: logger)],
            readiness: readiness, logger: logger)
    }

    /// With `--metrics HOST:PORT`, `tally up` serves its own /metrics and /ready (ready when every
    /// child is) at PORT, and each child serves its own at the next ports, in the order started:
    /// the gateway at PORT+1, then the workers, then the notifier. A Prometheus scrape job lists
    /// them all, as it would for processes run apart. Without it (or with port 0) the children
    /// serve none.
    static func servingMetrics(_ children: [ChildSpec], from address: HTTPAddress?, logger: Logger) -> [ChildSpec] {
        guard let address, address.port != 0, address.port + children.count <= 65535 else {
            return children.map { ChildSpec(name: $0.name, arguments: $0.arguments + ["--metrics", "off"]) }
        }
        var served: [String] = []
        let children = children.enumerated().map { index, child in
            let own = "\(address.host):\(address.port + index + 1)"
            served.append("\(child.name)=\(own)")
            return ChildSpec(name: child.name, arguments: child.arguments + ["--metrics", own])
        }
        logger.info("metrics", metadata: ["up": "\(address)", "children": "\(served.joined(separator: " "))"])
        return children
    }
}
