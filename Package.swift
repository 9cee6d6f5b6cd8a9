// swift-tools-version:6.1
import PackageDescription

// Tally's modules, one concern each. The dependency arrows point down this list:
// ZeroMQ (wire), TallyJSON <- TallyProtocol <- TallyMoney <- services <- TallyWorker/TallyGateway/TallyClient <- TallyCLI <- tally.
// Fault injection for integration tests (a slow handler, a crash right after a commit: see
// TallyWorker's FaultInjection) exists only in debug builds, the ones tests run; a release build,
// the one operators install, carries no test doors.
let faultInjection: [SwiftSetting] = [.define("TALLY_FAULT_INJECTION", .when(configuration: .debug))]

let package = Package(
    name: "Tally",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "tally", targets: ["tally"]),
        .executable(name: "tally-bench", targets: ["TallyBenchmark"]),
        .library(name: "TallyClient", targets: ["TallyClient"]),
        .library(name: "TallyTesting", targets: ["TallyTesting"]),
        // Every module that reads what the network sends, for packages that drive them from
        // outside, such as the fuzz targets in Fuzz/ (a package of its own, so that its sanitizer
        // flags stay out of this build).
        .library(name: "TallyModules", targets: [
            "ZeroMQ", "TallyJSON", "TallyProtocol", "TallyMoney", "TallyStorage", "TallyWorker", "TallyGateway", "TallyCurrency",
            "TallyClient", "TallyNotifier", "TallyAuth", "TallyTransportSecurity", "TallyIdentity", "TallyCatalog",
        ]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        // Traces: the Tracing API, and swift-otel's OTLP exporter over HTTP only (its gRPC exporter
        // would add grpc-swift to every build for a transport Tally does not need).
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
        .package(url: "https://github.com/swift-otel/swift-w3c-trace-context.git", from: "1.0.0"),
    ],
    targets: [
        // libzmq, found through pkg-config; Debian/Ubuntu ship it as libzmq3-dev.
        .systemLibrary(
            name: "CZeroMQ",
            pkgConfig: "libzmq",
            providers: [.apt(["libzmq3-dev"]), .brew(["zeromq"])]
        ),
        // The project's own thin, owned layer over libzmq: context, socket, multipart message, poller.
        .target(name: "ZeroMQ", dependencies: ["CZeroMQ"]),
        // A process's lifecycle: readiness and status through sd_notify as its supervisor sees
        // them, socket loops run as services of the group (swift-service-lifecycle), and the one
        // way child processes are started (ChildSpawn: `tally up`'s and the tests').
        .target(name: "TallyLifecycle", dependencies: [
            "ZeroMQ", .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // What operators see of a process: logs as text or JSON lines, metrics in Prometheus' text
        // format and readiness over HTTP (a small SwiftNIO HTTP/1.1 server, and the one-shot
        // client `tally health` probes it with).
        .target(name: "TallyObservability", dependencies: [
            "TallyLifecycle", "TallyJSON",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // Traces: W3C trace context as Tally carries it (envelope field, worker frame, CloudEvent
        // attribute), the span names and attributes every process uses, and the OTLP exporter
        // (swift-otel) run as a service of a process's group. Off unless an endpoint is configured.
        .target(name: "TallyTracing", dependencies: [
            .product(name: "Tracing", package: "swift-distributed-tracing"),
            .product(name: "OTel", package: "swift-otel"),
            .product(name: "W3CTraceContext", package: "swift-w3c-trace-context"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // JSON, and only JSON: the value tree, the reader, and the writer and decoder behind Codable
        // (Swift property names as snake_case keys, sorted keys, compact), for the wire and for files.
        .target(name: "TallyJSON"),
        // The wire contract: envelopes, replies, error codes, 7/MDP frames, the command catalog
        // (re-exports TallyJSON: JSON values are part of every envelope and reply).
        .target(name: "TallyProtocol", dependencies: ["TallyJSON"]),
        // Exact money: decimal parsing, minor units per currency, allocation, rounding.
        .target(name: "TallyMoney", dependencies: ["TallyProtocol"]),
        // State, written once for every engine: engine-neutral SQL, the engines (SQLite through GRDB),
        // migrations, and ServiceStore (a change, its events and its idempotent result in one transaction).
        .target(name: "TallyStorage", dependencies: [
            "TallyProtocol",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // The PostgreSQL engine (postgres-nio), in a module of its own so that SwiftNIO stays out of
        // TallyStorage and every SQLite-only module.
        .target(name: "TallyPostgres", dependencies: [
            "TallyStorage", "TallyProtocol",
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // The worker runtime: an MDP worker per thread that dispatches commands to a service's handlers.
        .target(name: "TallyWorker", dependencies: [
            "ZeroMQ", "TallyProtocol", "TallyStorage", "TallyLifecycle", "TallyTracing",
            .product(name: "Tracing", package: "swift-distributed-tracing"),
            .product(name: "DequeModule", package: "swift-collections"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ], swiftSettings: faultInjection),
        // Who is asking: Ed25519-signed access tokens (a minimal JWS), the key files they are signed
        // and checked with, and the middleware every worker runs to check them and enforce access.
        .target(name: "TallyAuth", dependencies: [
            "TallyProtocol", "TallyWorker", "ZeroMQ", .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // Which program is connecting: CURVE certificates, the allowlist the ZAP handler reads, and
        // the cap on each CURVE socket's connections. (TallyAuth for SecretFile, the private files
        // both keep their secrets in.)
        .target(name: "TallyTransportSecurity", dependencies: [
            "TallyAuth", "TallyProtocol", "ZeroMQ", .product(name: "Logging", package: "swift-log"),
        ]),
        // The identity service: people and service accounts, passwords (scrypt), sessions, refresh
        // and service tokens, roles, stored in identity.sqlite.
        .target(name: "TallyIdentity", dependencies: [
            "TallyProtocol", "TallyStorage", "TallyWorker", "TallyAuth",
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "_CryptoExtras", package: "swift-crypto"),
        ]),
        // The calculation service: tip, tip table, bill split, split adjustment.
        .target(name: "TallyCalc", dependencies: ["TallyProtocol", "TallyMoney", "TallyWorker"]),
        // The accounts service: budget accounts per owner, stored in accounts.sqlite, and its word list.
        .target(name: "TallyAccounts", dependencies: ["TallyProtocol", "TallyMoney", "TallyStorage", "TallyWorker"]),
        // The currency service: ISO 4217 + CLDR currencies loaded into its store, search and lookups.
        .target(name: "TallyCurrency", dependencies: [
            "ZeroMQ", "TallyProtocol", "TallyMoney", "TallyStorage", "TallyWorker", "TallyLifecycle",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // The shopping service: templates and shopping lists, prices, totals, shopping memory,
        // price comparison and auto-removal, stored in shopping.sqlite with its domain events.
        .target(name: "TallyShopping", dependencies: ["TallyProtocol", "TallyMoney", "TallyStorage", "TallyWorker"]),
        // The roster service: teams, weekly schedules in the team's time zone, the shift marketplace
        // (offered, wanted, swaps) with manager approval, points, hours worked and an iCalendar
        // feed, stored in roster.sqlite with its event outbox.
        .target(name: "TallyRoster", dependencies: ["TallyProtocol", "TallyStorage", "TallyWorker"]),
        // The gateway: a Majordomo broker with a JSON front door.
        .target(name: "TallyGateway", dependencies: [
            "ZeroMQ", "TallyProtocol", "TallyLifecycle", "TallyTracing",
            .product(name: "Tracing", package: "swift-distributed-tracing"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "DequeModule", package: "swift-collections"),
            .product(name: "HeapModule", package: "swift-collections"),
        ]),
        // Tally's clients, for `tally` and other Swift programs: Lazy Pirate request/reply over a
        // REQ socket, and the alert stream (`tally watch`): the notifier's PUB socket joined to
        // `alerts.list` without gaps or repeats, and the alert types both sides read.
        .target(name: "TallyClient", dependencies: ["ZeroMQ", "TallyProtocol"]),
        // The notifier: every service's events in, alerts by rule out (notifier.sqlite, a PUB
        // socket, and the `alerts` service); catch-up through the gateway. (`tally watch`'s side
        // of the alert stream is TallyClient's.)
        .target(name: "TallyNotifier", dependencies: [
            "ZeroMQ", "TallyProtocol", "TallyStorage", "TallyWorker", "TallyClient", "TallyLifecycle", "TallyTracing",
            .product(name: "Tracing", package: "swift-distributed-tracing"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // Every service Tally ships, in one place: the handlers workers run, and the command catalog
        // the gateway serves, read off their command tables.
        .target(name: "TallyCatalog", dependencies: [
            "TallyProtocol", "TallyStorage", "TallyWorker", "TallyCalc", "TallyAccounts", "TallyCurrency", "TallyShopping",
            "TallyRoster", "TallyNotifier", "TallyIdentity", "TallyAuth", "TallyPostgres", "TallyTracing",
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // The one-time copy of a deployment's SQLite files into PostgreSQL (`tally migrate-data`):
        // every service's database, from one snapshot, in one transaction.
        .target(name: "TallyDataMigration", dependencies: [
            "TallyCatalog", "TallyProtocol", "TallyStorage", "TallyPostgres", "TallyAccounts", "TallyCurrency",
            "TallyShopping", "TallyRoster", "TallyNotifier", "TallyIdentity",
        ]),
        // The process supervisor behind `tally up`: starts its children, prefixes their output,
        // restarts them with backoff, and stops them in order (the gateway first, so it drains).
        .target(name: "TallyProcessSupervision", dependencies: [
            "TallyLifecycle", "ZeroMQ",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // What the command line draws on a terminal: a full-screen view redrawn in place
        // (`tally status`) and a progress line; escape sequences and termios, nothing of Tally's.
        .target(name: "TallyTerminal"),
        // The `tally` command line: every subcommand and its options.
        .target(name: "TallyCLI", dependencies: [
            "ZeroMQ", "TallyProtocol", "TallyTerminal", "TallyWorker", "TallyGateway", "TallyClient", "TallyCatalog",
            "TallyCurrency", "TallyMoney", "TallyNotifier", "TallyLifecycle", "TallyStorage", "TallyAuth", "TallyIdentity",
            "TallyObservability", "TallyTracing", "TallyProcessSupervision", "TallyDataMigration", "TallyTransportSecurity",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ], swiftSettings: faultInjection),
        .executableTarget(name: "tally", dependencies: ["TallyCLI"]),
        // Test support: a real gateway and workers as child processes on private endpoints; a
        // service's commands called in-process, as a worker calls them; a seeded generator; the
        // database a service test runs on (SQLite, or PostgreSQL when TALLY_TEST_DATABASE says so).
        // TestDatabase puts a service harness on SQLite or PostgreSQL, hence TallyPostgres.
        .target(name: "TallyTesting", dependencies: [
            "ZeroMQ", "TallyLifecycle", "TallyProtocol", "TallyClient", "TallyWorker", "TallyAuth", "TallyTransportSecurity", "TallyStorage",
            "TallyPostgres",
            .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ]),
        // Throughput and latency of a running stack: speed is measured here, never in tests.
        .executableTarget(name: "TallyBenchmark", dependencies: [
            "ZeroMQ", "TallyProtocol", "TallyStorage", "TallyTesting", "TallyAuth", "TallyClient", "TallyShopping", "TallyCatalog",
            // For the environment settings, read as `tally` reads them (`EnvironmentDefaults`).
            "TallyCLI",
            // The bare relay's own processes: readiness, a parent watchdog, a service group.
            "TallyLifecycle",
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Histogram", package: "hdrhistogram-swift"),
        ]),

        .testTarget(name: "TallyJSONTests", dependencies: ["TallyJSON", "TallyProtocol", "TallyTesting"]),
        .testTarget(name: "TallyProtocolTests", dependencies: ["TallyProtocol", "TallyTesting"]),
        // The broker's parts on their own; the gateway as a whole is tested through real sockets.
        .testTarget(name: "TallyGatewayTests", dependencies: ["TallyGateway"]),
        .testTarget(name: "TallyTerminalTests", dependencies: ["TallyTerminal"]),
        .testTarget(name: "TallyObservabilityTests", dependencies: [
            "TallyObservability", .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
        ]),
        // The store's behaviour runs on both engines, so this target also depends on TallyPostgres.
        .testTarget(name: "TallyStorageTests", dependencies: ["TallyStorage", "TallyPostgres", "TallyProtocol", "TallyTesting"]),
        // The PostgreSQL engine on a throwaway cluster (TallyTesting's PostgresCluster).
        .testTarget(name: "TallyPostgresTests", dependencies: [
            "TallyPostgres", "TallyStorage", "TallyProtocol", "TallyTesting", .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "TallyMoneyTests", dependencies: ["TallyMoney", "TallyProtocol", "TallyTesting"]),
        .testTarget(name: "TallyCalcTests", dependencies: ["TallyCalc", "TallyMoney", "TallyProtocol", "TallyTesting"]),
        .testTarget(name: "TallyAccountsTests", dependencies: [
            "TallyAccounts", "TallyMoney", "TallyStorage", "TallyProtocol", "TallyTesting",
        ]),
        .testTarget(name: "TallyCurrencyTests", dependencies: [
            "TallyCurrency", "TallyMoney", "TallyProtocol", "TallyStorage", "TallyTesting", "TallyLifecycle",
        ]),
        .testTarget(name: "TallyShoppingTests", dependencies: [
            "TallyShopping", "TallyMoney", "TallyProtocol", "TallyStorage", "TallyTesting", "TallyWorker",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "TallyRosterTests", dependencies: [
            "TallyRoster", "TallyNotifier", "TallyProtocol", "TallyStorage", "TallyTesting",
        ]),
        .testTarget(name: "TallyClientTests", dependencies: ["TallyClient", "TallyProtocol"]),
        .testTarget(name: "TallyNotifierTests", dependencies: [
            "TallyNotifier", "TallyClient", "TallyProtocol", "TallyStorage", "TallyTesting", .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "TallyAuthTests", dependencies: [
            "TallyAuth", "TallyProtocol", "TallyWorker", "TallyTesting", .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "TallyIdentityTests", dependencies: [
            "TallyIdentity", "TallyAuth", "TallyProtocol", "TallyStorage", "TallyTesting",
        ]),
        .testTarget(name: "TallyIntegrationTests", dependencies: [
            "TallyTesting", "TallyClient", "TallyProtocol", "ZeroMQ", "TallyAuth", "TallyTransportSecurity", "TallyObservability",
            "TallyStorage", "TallyLifecycle",
        ]),
        .testTarget(name: "ContractTests", dependencies: ["TallyProtocol", "TallyTesting", "TallyCatalog", "TallyAuth", "ZeroMQ", "TallyLifecycle"], exclude: ["validate.py"]),
    ]
)
