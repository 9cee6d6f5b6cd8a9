import Foundation

/// A `tally` child process started for a test, with its output kept in a log file.
public final class TallyProcess: @unchecked Sendable {
    public let name: String
    public let arguments: [String]
    public let logFile: URL
    private let process: Process

    init(name: String, executable: URL, arguments: [String], logFile: URL) throws {
        self.name = name
        self.arguments = arguments
        self.logFile = logFile
        process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        // The child stops by itself if the test process dies, so no stray process outlives a run.
        environment["TALLY_PARENT_PID"] = "\(getpid())"
        process.environment = environment
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        let log = try FileHandle(forWritingTo: logFile)
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    public var pid: Int32 { process.processIdentifier }
    public var isRunning: Bool { process.isRunning }
    public var exitStatus: Int32? { process.isRunning ? nil : process.terminationStatus }

    /// What the process has logged so far.
    public var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

    public func signal(_ signal: Int32) {
        if process.isRunning { kill(process.processIdentifier, signal) }
    }

    /// Kills the process at once, as a crash would.
    public func kill9() async {
        signal(SIGKILL)
        _ = await waitForExit(timeout: .seconds(5))
    }

    /// Waits for the process to end; returns false if it was still running at the timeout.
    public func waitForExit(timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return true
    }

    /// SIGTERM, then SIGKILL if it has not stopped within `grace`. Returns whether it stopped gracefully.
    @discardableResult
    public func stop(grace: Duration = .seconds(5)) async -> Bool {
        signal(SIGTERM)
        if await waitForExit(timeout: grace) { return true }
        await kill9()
        return false
    }
}
