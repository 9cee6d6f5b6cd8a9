import Foundation

/// The notifier as a process of a stack, for tests and `tally-bench`.
extension TallyStack {
    /// Where the stack's notifier publishes alerts (its outlet).
    public var alertsEndpoint: String { "ipc://\(directory.path)/alerts" }

    /// The inlet and outlet of another notifier of the stack, for tests of several notifiers on
    /// one database: `startNotifier(endpoints:)` binds them, and the workers publish to both
    /// inlets when given `"\(events),\(other.events)"`.
    public func notifierEndpoints(_ name: String) -> (events: String, alerts: String) {
        ("ipc://\(directory.path)/events-\(name)", "ipc://\(directory.path)/alerts-\(name)")
    }

    /// Starts `tally notifier` on the stack's endpoints (or on `endpoints`, another notifier's)
    /// and waits until it is ready: its sockets are bound and the gateway has registered its
    /// `alerts` worker. It gets a service token (issued the first time), which it trades at the
    /// stack's identity worker, when there is one, for access tokens to catch up with.
    @discardableResult
    public func startNotifier(
        catchUpMs: Int = 200, endpoints: (events: String, alerts: String)? = nil, extraArguments: [String] = []
    ) async throws -> TallyProcess {
        let tokenFile = "\(dataDirectory)/keys/notifier.token"
        if !FileManager.default.fileExists(atPath: tokenFile) { try await issueServiceToken("notifier", into: tokenFile) }
        let process = try launch(
            "notifier",
            ["notifier", "--events-endpoint", endpoints?.events ?? events, "--alerts-endpoint", endpoints?.alerts ?? alertsEndpoint,
             "--frontend", frontend, "--backend", backend, "--data-dir", dataDirectory,
             "--catch-up-ms", "\(catchUpMs)", "--catch-up-timeout-ms", "1000",
             "--heartbeat-ms", "\(options.heartbeat.roundedUpMilliseconds)", "--liveness", "\(options.liveness)"]
                + extraArguments + (curve?.notifierArguments ?? []))
        try await process.waitUntilReady()
        return process
    }
}
