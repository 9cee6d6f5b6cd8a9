import Foundation
import Logging
import ServiceLifecycle
import TallyClient
import TallyLifecycle
import TallyProtocol
import TallyTracing
import ZeroMQ

/// How the notifier listens, publishes and catches up.
public struct NotifierConfiguration: Sendable {
    /// Where the notifier binds its SUB socket and every worker's PUB connects: `tcp://127.0.0.1:5557`.
    public var eventsEndpoint: String
    /// Where the notifier binds its PUB socket of events and alerts: `tcp://127.0.0.1:5558`.
    public var alertsEndpoint: String
    /// The gateways' client endpoints, for `<service>.events` catch-up calls: one is tried at a
    /// time, and a call that gets no reply sends the next one to the next gateway.
    public var frontendEndpoints: [String]
    /// The first (usually the only) gateway's client endpoint; setting it makes it the only one.
    public var frontendEndpoint: String {
        get { frontendEndpoints.first ?? "" }
        set { frontendEndpoints = [newValue] }
    }
    /// How often every source is asked for events the notifier has not seen.
    public var catchUpInterval: Duration
    /// How long one catch-up call may wait for the gateway.
    public var catchUpTimeout: Duration
    /// How often the PUB socket says `notifier.heartbeat` with the last alert sequence.
    public var heartbeatInterval: Duration
    /// Messages the SUB socket queues before dropping (the periodic check fetches what is dropped).
    public var receiveHighWaterMark: Int32
    /// The largest event frame the inlet takes; a publisher that sends a larger one is disconnected
    /// by libzmq (ZMQ_MAXMSGSIZE) before the frame is buffered. Events are a few hundred bytes.
    public var maximumEventBytes: Int64
    /// Messages the outlet queues for each subscriber (its send high-water mark); past it, PUB
    /// drops that subscriber's alerts (it catches up by sequence), so a slow reader costs at most
    /// this many messages of memory.
    public var maximumQueuedAlerts: Int32
    /// The largest message the outlet takes from a subscriber (its subscriptions, topic prefixes);
    /// a larger one disconnects that subscriber.
    public static let maximumSubscriptionBytes: Int64 = 64 << 10
    /// Services whose events the periodic check asks for (those with a `<service>.events`
    /// command), besides every service an event has already come from.
    public var eventSources: [String]
    /// The service token the notifier trades for access tokens to call `<service>.events` with;
    /// nil sends no token.
    public var serviceToken: String?
    /// CURVE: the notifier's key pair, serving the inlet (ZAP domain `worker`: only worker keys
    /// publish events) and the outlet (domain `subscriber`) and making catch-up calls, with the
    /// gateway's public key as `serverKey`; nil runs all three in plain text.
    public var curve: CurveClientKeys?
    /// Traces the handling of each event that carries a `traceparent`, and the alerts it makes;
    /// nil traces nothing.
    public var tracer: TallyTracer?

    public init(
        eventsEndpoint: String = "tcp://127.0.0.1:5557", alertsEndpoint: String = "tcp://127.0.0.1:5558",
        frontendEndpoint: String = "tcp://127.0.0.1:5555", catchUpInterval: Duration = .seconds(5),
        catchUpTimeout: Duration = .seconds(2), heartbeatInterval: Duration = .seconds(1),
        receiveHighWaterMark: Int32 = 100_000, maximumEventBytes: Int64 = 1 << 20, maximumQueuedAlerts: Int32 = 100_000,
        eventSources: [String] = [], serviceToken: String? = nil, curve: CurveClientKeys? = nil, tracer: TallyTracer? = nil
    ) {
        self.eventsEndpoint = eventsEndpoint
        self.alertsEndpoint = alertsEndpoint
        self.frontendEndpoints = [frontendEndpoint]
        self.catchUpInterval = catchUpInterval
        self.catchUpTimeout = catchUpTimeout
        self.heartbeatInterval = heartbeatInterval
        self.receiveHighWaterMark = receiveHighWaterMark
        self.maximumEventBytes = maximumEventBytes
        self.maximumQueuedAlerts = maximumQueuedAlerts
        self.eventSources = eventSources
        self.serviceToken = serviceToken
        self.curve = curve
        self.tracer = tracer
    }

    /// The services of `catalog` with a `<service>.events` command.
    public static func eventSources(in catalog: CommandCatalog) -> [String] {
        catalog.commands.filter { $0.name.hasSuffix(".events") }.map { String($0.service) }
    }
}

/// The notifier's inlet: one dedicated thread owning the SUB socket (events in), the PUB socket
/// (events forwarded, alerts, heartbeats out) and, during catch-up, a REQ socket to the gateway.
public struct NotifierService: Service {
    let store: NotifierStore
    let configuration: NotifierConfiguration
    let context: ZMQContext
    let logger: Logger
    let readiness: ReadinessReporter
    /// The live connections of the inlet (ZAP domain `worker`) and the outlet (`subscriber`).
    /// Under CURVE the process's `ZAPHandler` keeps them (and caps them); in plain text the
    /// notifier counts the outlet's subscribers itself, for its metrics.
    public let connections: [String: ConnectionGauge] = [
        CurveRole.worker.domain: ConnectionGauge(), CurveRole.subscriber.domain: ConnectionGauge(),
    ]

    /// - Parameter readiness: told once the inlet and the outlet are bound.
    public init(
        store: NotifierStore, configuration: NotifierConfiguration, context: ZMQContext, logger: Logger,
        readiness: ReadinessReporter = .none
    ) {
        self.store = store
        self.configuration = configuration
        self.context = context
        self.logger = logger
        self.readiness = readiness
    }

    public func run() async throws {
        try await DedicatedThread.runUntilShutdown(name: "notifier-inlet") { [self] stop in
            try self.loop(stop: stop)
        }
        logger.info("notifier stopped")
    }

    private func loop(stop: WakeupSignal) throws {
        let inlet = try ZMQSocket(context: context, type: .sub)
        defer { inlet.close() }
        try inlet.setLinger(milliseconds: 0)
        try inlet.setHighWaterMarks(send: 1000, receive: configuration.receiveHighWaterMark)
        try inlet.setMaxMessageSize(configuration.maximumEventBytes)
        try inlet.subscribe()
        if let curve = configuration.curve { try inlet.serveCurve(CurveServerKeys(keys: curve.keys, domain: CurveRole.worker.domain)) }
        try inlet.bind(configuration.eventsEndpoint)

        let outlet = try ZMQSocket(context: context, type: .pub)
        defer { outlet.close() }
        // A little linger so the last alerts reach subscribers on a clean stop.
        try outlet.setLinger(milliseconds: 200)
        try outlet.setHighWaterMarks(send: configuration.maximumQueuedAlerts, receive: 1000)
        try outlet.setMaxMessageSize(NotifierConfiguration.maximumSubscriptionBytes)
        if let curve = configuration.curve { try outlet.serveCurve(CurveServerKeys(keys: curve.keys, domain: CurveRole.subscriber.domain)) }
        // The outlet's subscribers, for the metrics (PUB itself cannot say): under CURVE the ZAP
        // handler counts them from the monitor serveCurve started; in plain text, a monitor here.
        let subscribers = connections[CurveRole.subscriber.domain]!
        let monitor = configuration.curve == nil ? try ConnectionMonitor(watching: outlet, context: context, gauge: subscribers) : nil
        defer { monitor?.close() }
        var reportedSubscribers = 0
        try outlet.bind(configuration.alertsEndpoint)
        readiness.ready("notifier taking events on \(configuration.eventsEndpoint), publishing alerts on \(configuration.alertsEndpoint)")

        let logger = self.logger
        let processor = EventProcessor(
            store: store,
            feed: GatewayEventFeed(
                context: context, endpoints: configuration.frontendEndpoints, timeout: configuration.catchUpTimeout, stop: stop,
                serviceToken: configuration.serviceToken,
                curve: configuration.curve),
            catalogSources: configuration.eventSources,
            initialBackoff: max(configuration.catchUpInterval, .milliseconds(100)),
            logger: logger, tracer: configuration.tracer
        ) { topic, body in
            do { try outlet.send([Data(topic.utf8), body], dontWait: true) } catch {
                logger.warning("could not publish", metadata: ["topic": "\(topic)", "error": "\(error)"])
            }
        }
        logger.info(
            "notifier ready",
            metadata: [
                "events": "\(configuration.eventsEndpoint)", "alerts": "\(configuration.alertsEndpoint)",
                "frontend": "\(configuration.frontendEndpoints.joined(separator: ","))", "catch_up_every": "\(configuration.catchUpInterval)",
            ])

        let clock = ContinuousClock()
        // The first check runs at once: whatever happened while the notifier was down is fetched now.
        var nextCheck = clock.now
        var nextHeartbeat = clock.now
        while !stop.isFired {
            var poller = ZMQPoller()
            let inletIndex = poller.add(inlet)
            let monitorIndex = monitor.map { poller.add($0.socket) }
            poller.add(fileDescriptor: stop.fileDescriptor)
            let wait = max(.zero, min(nextCheck, nextHeartbeat, processor.nextHoleDue ?? nextCheck) - clock.now)
            try poller.poll(timeout: wait)
            if stop.isFired { break }
            if let monitor, let monitorIndex, poller.isReadable(monitorIndex) { try monitor.update() }
            if subscribers.count != reportedSubscribers {
                reportedSubscribers = subscribers.count
                processor.metrics.subscriberConnections(reportedSubscribers)
            }
            if poller.isReadable(inletIndex) {
                // Drain what is queued, but not forever, so timers still run under a flood; what
                // one drain finds is handled in one transaction.
                var budget = 1000
                var events: [CloudEvent] = []
                while budget > 0, let frames = try inlet.receive(dontWait: true) {
                    budget -= 1
                    guard let body = frames.last, frames.count == 2 else {
                        logger.warning("event of \(frames.count) frames ignored; expected [type, event JSON]")
                        continue
                    }
                    do {
                        events.append(try CloudEvent.decode(body))
                    } catch {
                        logger.warning(
                            "unreadable event ignored",
                            metadata: ["topic": "\(String(decoding: frames[0].prefix(100), as: UTF8.self))", "error": "\(error)"])
                    }
                }
                processor.receive(events)
            }
            processor.catchUpOnOverdueHoles(at: clock.now)
            if clock.now >= nextCheck {
                processor.checkAllSources()
                nextCheck = clock.now + configuration.catchUpInterval
            }
            if clock.now >= nextHeartbeat {
                // Publishes first what other notifiers on the same database stored, so the
                // heartbeat never runs ahead of the alerts this notifier published.
                if let last = processor.lastAlertSequence() {
                    let body = (try? TallyJSON.encode(["last_alert_sequence": last])) ?? Data()
                    _ = try? outlet.send([Data(NotifierTopic.heartbeat.utf8), body], dontWait: true)
                }
                nextHeartbeat = clock.now + configuration.heartbeatInterval
            }
        }
    }
}
