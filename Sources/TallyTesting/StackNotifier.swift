import Foundation

/// The notifier as a process of a stack, for tests and `tally-bench`.
extension TallyStack {
    /// Where the stack's notifier publishes alerts (its outlet).
    public var alertsEndpoint: String { "ipc://\(directory.path)/alerts" }

    /// Starts `tally notifier` on the stack's endpoints and waits until it is ready: its sockets
    /// are bound and the gateway has registered its `alerts` worker. It gets a service token
    /// (issued the first time), which it trades at the stack's identity worker, when there is
    /// one, for access tokens to catch up with.
    @discardableResult
    public func startNotifier(catchUpMs: Int = 200, extraArguments: [String] = []) async throws -> TallyProcess {
        let tokenFile = "\(dataDirectory)/keys/notifier.token"
        if !FileManager.default.fileExists(atPath: tokenFile) { try await issueServiceToken("notifier", into: tokenFile) }
        let process = try launch(
            "notifier",
            ["notifier", "--events-endpoint", events, "--alerts-endpoint", alertsEndpoint,
             "--frontend", frontend, "--backend", backend, "--data-dir", dataDirectory,
             "--catch-up-ms", "\(catchUpMs)", "--catch-up-timeout-ms", "1000",
             "--heartbeat-ms", "\(options.heartbeat.roundedUpMilliseconds)", "--liveness", "\(options.liveness)"]
                + extraArguments + (curve?.notifierArguments ?? []))
        try await process.waitUntilReady()
        return process
    }
}
