import Foundation
import TallyLifecycle
import TallyStorage

/// Defaults that an environment variable can override, so containers and systemd units configure
/// Tally without flags. A flag given on the command line wins over both.
enum EnvironmentDefaults {
    static func string(_ name: String, _ fallback: String) -> String {
        ProcessInfo.processInfo.environment[name].flatMap { $0.isEmpty ? nil : $0 } ?? fallback
    }

    /// The variable's value, or nil when it is unset or empty.
    static func optionalString(_ name: String) -> String? {
        ProcessInfo.processInfo.environment[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    static func int(_ name: String, _ fallback: Int) -> Int {
        ProcessInfo.processInfo.environment[name].flatMap { Int($0) } ?? fallback
    }

    static func double(_ name: String, _ fallback: Double) -> Double {
        ProcessInfo.processInfo.environment[name].flatMap { Double($0) } ?? fallback
    }

    static var frontend: String { string("TALLY_GATEWAY_FRONTEND", "tcp://127.0.0.1:5555") }
    static var backend: String { string("TALLY_GATEWAY_BACKEND", "tcp://127.0.0.1:5556") }
    static var heartbeatMilliseconds: Int { int("TALLY_HEARTBEAT_MS", 2500) }
    static var liveness: Int { int("TALLY_LIVENESS", 3) }
    static var maximumMessageBytes: Int { int("TALLY_MAX_MESSAGE_BYTES", 256 * 1024) }
    static var defaultDeadlineMilliseconds: Int { int("TALLY_DEFAULT_DEADLINE_MS", 5000) }
    static var maximumQueueDepth: Int { int("TALLY_MAX_QUEUE_DEPTH", 10_000) }
    static var maximumClientRequests: Int { int("TALLY_MAX_CLIENT_REQUESTS", 1000) }
    static var maximumEventBytes: Int { int("TALLY_MAX_EVENT_BYTES", 1 << 20) }
    static var maximumQueuedAlerts: Int { int("TALLY_MAX_QUEUED_ALERTS", 100_000) }
    static var maximumHeldReplies: Int { int("TALLY_MAX_HELD_REPLIES", 200_000) }
    static var maximumConnections: Int { int("TALLY_MAX_CONNECTIONS", 10_000) }
    static var drainTimeoutMilliseconds: Int { int("TALLY_DRAIN_TIMEOUT_MS", 5000) }
    static var drainQuietMilliseconds: Int { int("TALLY_DRAIN_QUIET_MS", 100) }
    static var eventsEndpoint: String { string("TALLY_EVENTS_ENDPOINT", "tcp://127.0.0.1:5557") }
    static var dataDirectory: String { string("TALLY_DATA_DIR", "./.tally") }
    static var databaseURL: String? { optionalString("TALLY_DATABASE_URL") }
    static var logLevel: String { string("TALLY_LOG_LEVEL", "info") }
    static var logFormat: ProcessOptions.LogFormat { ProcessOptions.LogFormat(rawValue: string("TALLY_LOG_FORMAT", "text")) ?? .text }
    static var metricsAddress: String { string("TALLY_METRICS_ADDRESS", "off") }
    static var tracingEndpoint: String { string("TALLY_TRACING_ENDPOINT", "off") }
    static var tracingSampleRatio: Double { double("TALLY_TRACING_SAMPLE_RATIO", 1) }
    static var durability: Durability { Durability(rawValue: string("TALLY_DURABILITY", "disk")) ?? .disk }
    static var cpuScheduling: CPUScheduling { CPUScheduling(rawValue: string("TALLY_CPU_SCHEDULING", "batch")) ?? .batch }
    /// MDP workers (threads) per worker process: one per core.
    static var concurrency: Int { int("TALLY_WORKER_CONCURRENCY", ProcessInfo.processInfo.activeProcessorCount) }
    static var capacity: Int { int("TALLY_WORKER_CAPACITY", 16) }
    static var callTimeoutMilliseconds: Int { int("TALLY_CALL_TIMEOUT_MS", 5000) }
    static var callRetries: Int { int("TALLY_CALL_RETRIES", 2) }
    static var publicKeys: String? { optionalString("TALLY_PUBLIC_KEYS") }
    static var signingKey: String? { optionalString("TALLY_SIGNING_KEY") }
    static var serviceTokenFile: String? { optionalString("TALLY_SERVICE_TOKEN_FILE") }
    static var accessTokenSeconds: Int { int("TALLY_ACCESS_TOKEN_SECONDS", 300) }
    static var refreshTokenDays: Int { int("TALLY_REFRESH_TOKEN_DAYS", 14) }
    static var passwordCost: Int { int("TALLY_PASSWORD_COST", 17) }
    static var token: String? { optionalString("TALLY_TOKEN") }
    static var adminUser: String? { optionalString("TALLY_ADMIN_USER") }
    static var adminPassword: String? { optionalString("TALLY_ADMIN_PASSWORD") }
    static var curveKey: String? { optionalString("TALLY_CURVE_KEY") }
    static var gatewayKey: String? { optionalString("TALLY_GATEWAY_KEY") }
    static var notifierKey: String? { optionalString("TALLY_NOTIFIER_KEY") }
    static var curveAllow: String? { optionalString("TALLY_CURVE_ALLOW") }
    static var insecure: Bool { optionalString("TALLY_INSECURE") == "1" }
}
