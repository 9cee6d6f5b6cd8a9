import ArgumentParser
import Foundation
import TallyLifecycle
import TallyStorage

/// A setting an environment variable gives when its flag is not, so containers and systemd units
/// configure Tally without flags. The variable is named once, here: an option takes its default
/// from `value` and its help from `help(_:)`, which ends by naming the variable. Public for
/// `tally-bench`, whose options read the same variables.
public struct EnvironmentSetting<Value: Sendable>: Sendable {
    public let variable: String
    let fallback: Value
    /// What a value must look like, for the error when it does not ("a whole number").
    let expected: String
    let parse: @Sendable (String) -> Value?

    /// The variable's value, or the fallback when it is unset or empty. A value that does not
    /// parse reads as the fallback here, for help to be shown at all; `TallyCommand.validate`
    /// refuses it before any command runs.
    public var value: Value {
        guard let text = Self.text(of: variable) else { return fallback }
        return parse(text) ?? fallback
    }

    /// `text`, then the variable that sets the option when its flag is not given.
    public func help(_ text: String) -> ArgumentHelp {
        ArgumentHelp("\(text) Env: \(variable).")
    }

    /// Why the variable's value cannot be used, or nil when it can (or is not set).
    public var problem: String? {
        guard let text = Self.text(of: variable), parse(text) == nil else { return nil }
        return "\(variable) must be \(expected); got '\(text)'"
    }

    private static func text(of variable: String) -> String? {
        ProcessInfo.processInfo.environment[variable].flatMap { $0.isEmpty ? nil : $0 }
    }
}

extension EnvironmentSetting where Value == String {
    init(_ variable: String, _ fallback: String) {
        self.init(variable: variable, fallback: fallback, expected: "text", parse: { $0 })
    }
}

extension EnvironmentSetting where Value == String? {
    /// A setting with no default: nil when the variable is unset or empty.
    init(_ variable: String) {
        self.init(variable: variable, fallback: nil, expected: "text", parse: { $0 })
    }
}

extension EnvironmentSetting where Value == Int? {
    /// A number with no default: nil when the variable is unset or empty.
    init(_ variable: String) {
        self.init(variable: variable, fallback: nil, expected: "a whole number", parse: { Int($0).map(Optional.some) })
    }
}

extension EnvironmentSetting where Value == Int {
    init(_ variable: String, _ fallback: Int) {
        self.init(variable: variable, fallback: fallback, expected: "a whole number", parse: { Int($0) })
    }
}

extension EnvironmentSetting where Value == Double {
    init(_ variable: String, _ fallback: Double) {
        self.init(variable: variable, fallback: fallback, expected: "a number", parse: { Double($0) })
    }
}

extension EnvironmentSetting where Value == Bool {
    /// A flag's variable: `1` sets it, `0` (or unset) leaves it off.
    init(flag variable: String) {
        self.init(variable: variable, fallback: false, expected: "1 or 0", parse: { ["1": true, "0": false][$0] })
    }

    func help(_ text: String) -> ArgumentHelp {
        ArgumentHelp("\(text) Env: \(variable)=1.")
    }
}

extension EnvironmentSetting where Value: RawRepresentable<String> & CaseIterable {
    init(_ variable: String, _ fallback: Value) {
        let names = Value.allCases.map(\.rawValue)
        let expected = names.count == 2 ? names.joined(separator: " or ") : "one of \(names.joined(separator: ", "))"
        self.init(variable: variable, fallback: fallback, expected: expected, parse: { Value(rawValue: $0) })
    }
}

/// Every setting an environment variable can give, in one place.
public enum EnvironmentDefaults {
    static let frontend = EnvironmentSetting("TALLY_GATEWAY_FRONTEND", "tcp://127.0.0.1:5555")
    static let backend = EnvironmentSetting("TALLY_GATEWAY_BACKEND", "tcp://127.0.0.1:5556")
    static let heartbeatMilliseconds = EnvironmentSetting("TALLY_HEARTBEAT_MS", 2500)
    static let liveness = EnvironmentSetting("TALLY_LIVENESS", 3)
    static let maximumMessageBytes = EnvironmentSetting("TALLY_MAX_MESSAGE_BYTES", 256 * 1024)
    static let defaultDeadlineMilliseconds = EnvironmentSetting("TALLY_DEFAULT_DEADLINE_MS", 5000)
    static let maximumQueueDepth = EnvironmentSetting("TALLY_MAX_QUEUE_DEPTH", 10_000)
    static let maximumClientRequests = EnvironmentSetting("TALLY_MAX_CLIENT_REQUESTS", 1000)
    static let maximumEventBytes = EnvironmentSetting("TALLY_MAX_EVENT_BYTES", 1 << 20)
    static let maximumQueuedAlerts = EnvironmentSetting("TALLY_MAX_QUEUED_ALERTS", 100_000)
    static let maximumHeldReplies = EnvironmentSetting("TALLY_MAX_HELD_REPLIES", 200_000)
    static let maximumConnections = EnvironmentSetting("TALLY_MAX_CONNECTIONS", 10_000)
    static let drainTimeoutMilliseconds = EnvironmentSetting("TALLY_DRAIN_TIMEOUT_MS", 5000)
    static let drainQuietMilliseconds = EnvironmentSetting("TALLY_DRAIN_QUIET_MS", 100)
    static let eventsEndpoint = EnvironmentSetting("TALLY_EVENTS_ENDPOINT", "tcp://127.0.0.1:5557")
    static let alertsEndpoint = EnvironmentSetting("TALLY_ALERTS_ENDPOINT", "tcp://127.0.0.1:5558")
    static let catchUpMilliseconds = EnvironmentSetting("TALLY_CATCH_UP_MS", 5000)
    static let dataDirectory = EnvironmentSetting("TALLY_DATA_DIR", "./.tally")
    static let databaseURL = EnvironmentSetting<String?>("TALLY_DATABASE_URL")
    static let logLevel = EnvironmentSetting("TALLY_LOG_LEVEL", "info")
    static let logFormat = EnvironmentSetting("TALLY_LOG_FORMAT", ProcessOptions.LogFormat.text)
    static let metricsAddress = EnvironmentSetting("TALLY_METRICS_ADDRESS", "off")
    static let tracingEndpoint = EnvironmentSetting("TALLY_TRACING_ENDPOINT", "off")
    static let tracingSampleRatio = EnvironmentSetting("TALLY_TRACING_SAMPLE_RATIO", 1.0)
    public static let durability = EnvironmentSetting("TALLY_DURABILITY", Durability.disk)
    public static let cpuScheduling = EnvironmentSetting("TALLY_CPU_SCHEDULING", CPUScheduling.batch)
    /// MDP workers (threads) per worker process; unset, each service's default
    /// (`ServiceHandler.defaultConcurrency`).
    static let concurrency = EnvironmentSetting<Int?>("TALLY_WORKER_CONCURRENCY")
    static let capacity = EnvironmentSetting("TALLY_WORKER_CAPACITY", 16)
    static let callTimeoutMilliseconds = EnvironmentSetting("TALLY_CALL_TIMEOUT_MS", 5000)
    static let callRetries = EnvironmentSetting("TALLY_CALL_RETRIES", 2)
    static let publicKeys = EnvironmentSetting<String?>("TALLY_PUBLIC_KEYS")
    static let signingKey = EnvironmentSetting<String?>("TALLY_SIGNING_KEY")
    static let serviceTokenFile = EnvironmentSetting<String?>("TALLY_SERVICE_TOKEN_FILE")
    static let accessTokenSeconds = EnvironmentSetting("TALLY_ACCESS_TOKEN_SECONDS", 300)
    static let refreshTokenDays = EnvironmentSetting("TALLY_REFRESH_TOKEN_DAYS", 14)
    static let passwordCost = EnvironmentSetting("TALLY_PASSWORD_COST", 17)
    public static let token = EnvironmentSetting<String?>("TALLY_TOKEN")
    static let adminUser = EnvironmentSetting<String?>("TALLY_ADMIN_USER")
    static let adminPassword = EnvironmentSetting<String?>("TALLY_ADMIN_PASSWORD")
    static let curveKey = EnvironmentSetting<String?>("TALLY_CURVE_KEY")
    static let gatewayKey = EnvironmentSetting<String?>("TALLY_GATEWAY_KEY")
    static let notifierKey = EnvironmentSetting<String?>("TALLY_NOTIFIER_KEY")
    static let curveAllow = EnvironmentSetting<String?>("TALLY_CURVE_ALLOW")
    static let insecure = EnvironmentSetting(flag: "TALLY_INSECURE")

    /// Every setting above, for `problems`.
    static let all: [any CheckedSetting] = [
        frontend, backend, heartbeatMilliseconds, liveness, maximumMessageBytes, defaultDeadlineMilliseconds, maximumQueueDepth,
        maximumClientRequests, maximumEventBytes, maximumQueuedAlerts, maximumHeldReplies, maximumConnections,
        drainTimeoutMilliseconds, drainQuietMilliseconds, eventsEndpoint, alertsEndpoint, catchUpMilliseconds, dataDirectory,
        databaseURL, logLevel, logFormat, metricsAddress, tracingEndpoint, tracingSampleRatio, durability, cpuScheduling,
        concurrency, capacity, callTimeoutMilliseconds, callRetries, publicKeys, signingKey, serviceTokenFile,
        accessTokenSeconds, refreshTokenDays, passwordCost, token, adminUser, adminPassword, curveKey, gatewayKey, notifierKey,
        curveAllow, insecure,
    ]

    /// What is wrong with the variables set, one line each; empty when nothing is.
    public static var problems: [String] { all.compactMap(\.problem) }
}

/// A setting whose variable's value can be checked, whatever the type it gives.
public protocol CheckedSetting: Sendable {
    var variable: String { get }
    var problem: String? { get }
}

extension EnvironmentSetting: CheckedSetting {}
