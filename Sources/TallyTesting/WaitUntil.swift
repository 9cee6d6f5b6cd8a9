/// Polls `condition` until it holds, and fails once it has been checked and found false for `timeout`.
///
/// The timeout counts the time this wait actually ran, not the wall clock. When the test
/// process's concurrency pool is busy (Swift Testing runs every test at once on as many threads
/// as there are cores), a waiting task may not be resumed for many seconds; such a pause counts
/// as at most one second. So a slow or loaded machine makes a wait longer, never wrong. Prefer a
/// signal where one exists (`TallyProcess.waitUntilReady`, an `Awaitable`).
///
/// - Parameter failure: the error to throw, given a sentence on how the wait went (checks made,
///   time, the longest pause) for its message.
public func waitUntil(
    _ what: String, timeout: Duration = .seconds(20), _ condition: () async throws -> Bool,
    failure: (String) -> any Error = { WaitFailure(description: "timed out waiting until \($0)") }
) async throws {
    let clock = ContinuousClock()
    let started = clock.now
    var running = Duration.zero
    var checks = 0
    var longestPause = Duration.zero
    var last = started
    while true {
        checks += 1
        if try await condition() { return }
        let now = clock.now
        let pause = now - last
        longestPause = max(longestPause, pause)
        // A check may itself wait (a call with its own timeout); beyond a second, the waiter was
        // not being run, and that does not count.
        running += min(pause, .seconds(1))
        last = now
        if running >= timeout {
            throw failure(
                "\(what): checked \(checks) times over \(now - started) (\(running) of it running), the longest pause between checks \(longestPause)")
        }
        try await Task.sleep(for: .milliseconds(20))
    }
}

public struct WaitFailure: Error, CustomStringConvertible {
    public let description: String
    public init(description: String) { self.description = description }
}
