import Foundation
import TallyProtocol
import ZeroMQ

/// `tally watch`'s loop, on a dedicated thread owning a SUB socket on the notifier's PUB and,
/// while fetching, a REQ socket to the gateway (`alerts.list`). See `WatchSeam` for the seam.
///
/// A watch is someone's: it subscribes to its owner's topic only (`alert.<owner>.`) and lists
/// with their token, which lists only their alerts. Without an owner it shows everyone's, which
/// `alerts.list` allows an admin (`all_owners`).
public struct AlertWatcher: Sendable {
    public var alertsEndpoint: String
    /// The gateways' client endpoints for `alerts.list`: one tried per fetch, the next one after a
    /// fetch got no reply.
    public var gatewayEndpoints: [String]
    /// The first (usually the only) gateway; setting it makes it the only one.
    public var gatewayEndpoint: String {
        get { gatewayEndpoints.first ?? "" }
        set { gatewayEndpoints = [newValue] }
    }
    /// Whose alerts: a user id, or nil for everyone's.
    public var owner: String?
    public var since: Int64?
    public var topicPrefix: String
    public var callTimeout: Duration
    /// How long to wait before fetching again after the gateway did not answer.
    public var retryDelay: Duration
    /// The access token an `alerts.list` call carries; asked for before each call, so a watch that
    /// runs for hours can send a refreshed one. It runs on the watch's thread and may block.
    public var accessToken: @Sendable () throws -> String?
    /// CURVE keys for the notifier's outlet (a subscriber key) and for the gateway; nil for plain text.
    public var alertsCurve: CurveClientKeys?
    public var gatewayCurve: CurveClientKeys?
    /// Silence on the alert socket after which the watch connects again. The notifier says
    /// `notifier.heartbeat` every second; libzmq reconnects a dropped connection by itself, but not
    /// one whose handshake was refused (a notifier at its `--max-connections`, say).
    public var silenceBeforeReconnect: Duration = .seconds(5)

    public init(
        alertsEndpoint: String, gatewayEndpoint: String, owner: String?, since: Int64?, topicPrefix: String,
        callTimeout: Duration = .seconds(3), retryDelay: Duration = .seconds(1),
        alertsCurve: CurveClientKeys? = nil, gatewayCurve: CurveClientKeys? = nil,
        accessToken: @escaping @Sendable () throws -> String?
    ) {
        self.alertsCurve = alertsCurve
        self.gatewayCurve = gatewayCurve
        self.alertsEndpoint = alertsEndpoint
        self.gatewayEndpoints = [gatewayEndpoint]
        self.owner = owner
        self.since = since
        self.topicPrefix = topicPrefix
        self.callTimeout = callTimeout
        self.retryDelay = retryDelay
        self.accessToken = accessToken
    }

    /// Runs until `stop` fires, calling `show` for each alert in order and `warn` for trouble, and
    /// `ready` once, when it knows where it starts: every alert after that sequence will be shown.
    /// A fetch the service refuses for good (`permission_denied`: everyone's alerts without the
    /// admin role) ends it with that error; anything else is retried.
    public func run(
        context: ZMQContext, stop: WakeupSignal, show: (Alert) -> Void, warn: (String) -> Void,
        ready: (Int64) -> Void = { _ in }
    ) throws {
        func subscribed() throws -> ZMQSocket {
            let socket = try ZMQSocket(context: context, type: .sub)
            try socket.setLinger(milliseconds: 0)
            try socket.setHighWaterMarks(send: 1000, receive: 100_000)
            try socket.subscribe(Data((owner.map(NotifierTopic.alerts(of:)) ?? NotifierTopic.alertPrefix).utf8))
            try socket.subscribe(Data(NotifierTopic.heartbeat.utf8))
            if let alertsCurve { try socket.useCurve(alertsCurve) }
            try socket.connect(alertsEndpoint)
            return socket
        }
        // Subscribe first, fetch second (the Clone pattern): what is published meanwhile waits in the socket.
        var socket = try subscribed()
        defer { socket.close() }

        let requester = LazyPirateRequester(
            context: context, endpoints: gatewayEndpoints, timeout: callTimeout, tries: 1, curve: gatewayCurve)
        var seam = WatchSeam(since: since, topicPrefix: topicPrefix, owner: owner)
        let clock = ContinuousClock()
        var fetchWanted = true
        var nextFetch = clock.now
        var warnedUnreachable = false
        var announced = false
        var lastHeard = clock.now
        var warnedSilent = false

        func fetch() throws {
            do {
                let baselineOnly = seam.covered == nil
                while !stop.isFired {
                    let after = seam.covered ?? Int64.max
                    let page = try list(requester, after: after, limit: baselineOnly ? 1 : 500, stop: stop)
                    for alert in seam.apply(page, baselineOnly: baselineOnly) { show(alert) }
                    if baselineOnly || !page.more { break }
                }
                fetchWanted = false
                if !announced, let covered = seam.covered {
                    announced = true
                    ready(covered)
                }
                if warnedUnreachable { warn("alerts.list answers again; caught up") }
                warnedUnreachable = false
            } catch let error as TallyError where error.code == .permissionDenied {
                throw error
            } catch {
                if !warnedUnreachable { warn("cannot fetch stored alerts (\(error)); retrying, and showing live alerts meanwhile") }
                warnedUnreachable = true
                nextFetch = clock.now + retryDelay
            }
        }

        while !stop.isFired {
            if fetchWanted && clock.now >= nextFetch { try fetch() }
            var poller = ZMQPoller()
            let index = poller.add(socket)
            poller.add(fileDescriptor: stop.fileDescriptor)
            try poller.poll(timeout: fetchWanted ? max(.milliseconds(1), nextFetch - clock.now) : .milliseconds(500))
            if stop.isFired { break }
            guard poller.isReadable(index) else {
                if clock.now - lastHeard >= silenceBeforeReconnect {
                    if !warnedSilent { warn("no word from the notifier at \(alertsEndpoint) for \(silenceBeforeReconnect); connecting again") }
                    warnedSilent = true
                    socket.close()
                    socket = try subscribed()
                    lastHeard = clock.now
                    // What was published while the watch heard nothing comes from alerts.list.
                    fetchWanted = true
                }
                continue
            }
            lastHeard = clock.now
            if warnedSilent { warn("the notifier is heard again") }
            warnedSilent = false
            while let frames = try socket.receive(dontWait: true) {
                guard frames.count == 2 else { continue }
                let topic = String(decoding: frames[0], as: UTF8.self)
                if topic == NotifierTopic.heartbeat {
                    if let last = (try? JSONReader.parse(frames[1]))?["last_alert_sequence"]?.intValue,
                        seam.needsFetch(lastAlertSequence: last)
                    {
                        fetchWanted = true
                    }
                    continue
                }
                guard let alert = try? TallyJSON.decode(Alert.self, from: frames[1]) else { continue }
                switch seam.live(alert) {
                case .show(let alert): show(alert)
                case .skip: break
                case .fetch: fetchWanted = true
                }
            }
        }
    }

    private func list(_ requester: LazyPirateRequester, after: Int64, limit: Int, stop: WakeupSignal) throws -> AlertPage {
        var args: [String: JSONValue] = ["after": .integer(after), "limit": .integer(Int64(limit))]
        if owner == nil { args["all_owners"] = true }
        let envelope = Envelope(
            command: "alerts.list", args: .object(args),
            deadlineMs: TallyClient.deadline(forTimeout: callTimeout).roundedUpMilliseconds, token: try accessToken())
        let frames = try requester.request(envelope.encoded(), stop: stop)
        guard frames.count == 1 else { throw ClientError.malformedReply("\(frames.count) frames") }
        let reply = try Reply.decode(frames[0])
        switch reply.outcome {
        case .failure(let error): throw error
        case .success(let result): return try TallyJSON.decode(AlertPage.self, from: result)
        }
    }
}
