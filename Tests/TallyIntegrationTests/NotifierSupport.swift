import Foundation
import TallyProtocol
import TallyTesting
import ZeroMQ

/// The notifier and `tally watch` as processes of a test stack, and raw PUB/SUB peers.
extension TallyStack {
    var eventsEndpoint: String { events }

    /// Starts `tally watch --json` against this stack, showing the alerts of the person `token`
    /// names; without a token, of the login stored under `environment`'s `XDG_CONFIG_HOME` (as
    /// `tally login` left it). Under CURVE it connects with the key pair `curveKey`. It watches the
    /// stack's notifier, or the one publishing on `alertsEndpoint`.
    func startWatch(
        _ arguments: [String], token: String?, environment: [String: String] = [:], curveKey: String = "subscriber",
        alertsEndpoint: String? = nil
    ) throws -> TallyProcess {
        try launch(
            "watch",
            ["watch", "--json", "--alerts-endpoint", alertsEndpoint ?? self.alertsEndpoint, "--endpoint", frontend, "--timeout-ms", "1000"]
                + (token.map { ["--token", $0] } ?? []) + arguments + (curve?.clientArguments(curveKey) ?? []),
            environment: environment)
    }

    /// An access token of ann, whose user id in the events these tests publish is `ann`; it lasts
    /// longer than any test.
    func annToken() throws -> String { try accessToken(for: "ann", lifetime: .seconds(3600)) }

    /// Publishes events as a worker does: a PUB socket connected to the inlet, `[type, event JSON]`;
    /// under CURVE with the stack's `worker` key.
    func publish(_ events: [JSONValue]) async throws {
        let endpoint = eventsEndpoint
        let context = self.context
        let keys = try curve?.clientKeys("worker", server: "notifier")
        try await DedicatedThread.run(name: "test-publisher") {
            // An XPUB hears the subscriber's subscription arrive: a PUB would drop what it sends
            // before then, so wait for it instead of sleeping.
            let socket = try ZMQSocket(context: context, type: .xpub)
            defer { socket.close() }
            try socket.setLinger(milliseconds: 2000)
            if let keys { try socket.useCurve(keys) }
            try socket.connect(endpoint)
            var poller = ZMQPoller()
            poller.add(socket)
            try poller.poll(timeout: .seconds(60))
            guard let subscription = try socket.receive(dontWait: true), subscription.first?.first == 1 else {
                throw StackError.timedOut(
                    detail: "the notifier subscribes to \(endpoint): no subscription in 60 s", processes: "", logs: "")
            }
            for event in events {
                try socket.send([Data((event["type"]?.stringValue ?? "").utf8), try TallyJSON.encode(event)])
            }
        }
    }
}

/// The alerts a `tally watch --json` process has printed, in order.
func watchedAlerts(_ process: TallyProcess) -> [JSONValue] {
    process.log.split(separator: "\n").compactMap { line in
        guard line.hasPrefix("{") else { return nil }
        return try? JSONReader.parse(Data(line.utf8))
    }
}

func sequences(_ alerts: [JSONValue]) -> [Int64] { alerts.compactMap { $0["sequence"]?.intValue } }

/// A `shopping.price_changed` event as the shopping service publishes it, for `owner`'s purchase.
func priceChanged(
    _ sequence: Int64, item: String = "Milk", id: String? = nil, direction: String = "higher", owner: String = "ann",
    requestID: String? = nil
) -> JSONValue {
    var event: JSONValue = [
        "specversion": "1.0", "id": .string(id ?? "evt-\(item.lowercased())-\(sequence)"), "source": "tally/shopping",
        "type": "shopping.price_changed", "time": "2026-11-21T10:00:00.000Z", "subject": .string("\(owner)/item-1"),
        "datacontenttype": "application/json", "sequence": .integer(sequence),
        "data": [
            "owner": .string(owner), "item_name": .string(item), "price": "1.29", "previous_price": "1.19", "currency": "EUR",
            "direction": .string(direction),
        ],
    ]
    if let requestID, case .object(var fields) = event {
        fields["requestid"] = .string(requestID)
        event = .object(fields)
    }
    return event
}

/// A service's stored events, served as `<service>.events` by a raw MDP worker in the test.
final class EventFeedStub: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [JSONValue] = []
    private var afters: [Int64] = []

    func add(_ events: JSONValue...) { lock.withLock { stored += events } }
    var requestedAfter: [Int64] { lock.withLock { afters } }

    func answer(_ body: Data) -> Data {
        let envelope = (try? JSONReader.parse(body)) ?? [:]
        let after = envelope["args"]?["after"]?.intValue ?? 0
        let limit = envelope["args"]?["limit"]?.intValue ?? 100
        let (events, last): ([JSONValue], Int64) = lock.withLock {
            afters.append(after)
            let newer = stored.filter { ($0["sequence"]?.intValue ?? 0) > after }.prefix(Int(limit))
            return (Array(newer), stored.compactMap { $0["sequence"]?.intValue }.max() ?? 0)
        }
        let result: JSONValue = ["events": .array(events), "last_sequence": .integer(last)]
        return (try? Reply.success(id: envelope["id"]?.stringValue, result: result)) ?? Data()
    }
}

/// A raw SUB socket on the notifier's PUB, collecting `[topic, body]` on a thread of its own.
final class RawSubscriber: @unchecked Sendable {
    private let lock = NSLock()
    private var messages: [(topic: String, body: JSONValue)] = []
    private var heartbeat = false
    private let stop = WakeupSignal()
    private var task: Task<Void, Error>?

    init(endpoint: String, prefix: String, context: ZMQContext) {
        let stop = self.stop
        task = Task {
            try await DedicatedThread.run(name: "test-subscriber", stoppingWith: stop) {
                let socket = try ZMQSocket(context: context, type: .sub)
                defer { socket.close() }
                try socket.subscribe(Data(prefix.utf8))
                // The notifier's heartbeat shows the subscription is in place.
                try socket.subscribe(Data("notifier.heartbeat".utf8))
                try socket.connect(endpoint)
                while !stop.isFired {
                    var poller = ZMQPoller()
                    poller.add(socket)
                    poller.add(fileDescriptor: stop.fileDescriptor)
                    try poller.poll(timeout: .milliseconds(100))
                    while let frames = try socket.receive(dontWait: true), frames.count == 2 {
                        let topic = String(decoding: frames[0], as: UTF8.self)
                        if topic == "notifier.heartbeat" {
                            self.lock.withLock { self.heartbeat = true }
                            continue
                        }
                        let body = (try? JSONReader.parse(frames[1])) ?? .null
                        self.lock.withLock { self.messages.append((topic, body)) }
                    }
                }
            }
        }
    }

    var received: [(topic: String, body: JSONValue)] { lock.withLock { messages } }
    var heardHeartbeat: Bool { lock.withLock { heartbeat } }

    func close() async {
        stop.fire()
        _ = try? await task?.value
    }
}
