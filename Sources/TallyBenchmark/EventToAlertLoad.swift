import Foundation
import Histogram
import TallyClient
import TallyProtocol
import ZeroMQ

/// Event to alert: purchases sent at a fixed rate, each at a price other than the last purchase
/// of the same item, and how long after its acknowledgement reaches the client the purchase's
/// alert reaches a subscriber of the notifier's outlet (a SUB socket subscribed as `tally watch`
/// is, on the same thread as the client, so both times are read on one clock).
///
/// Open loop: a purchase is sent when its time comes, not when the previous one is answered, so
/// a slow path shows as latency, not as a lower rate. The latency is counted from the
/// acknowledgement (an alert that arrives first counts as 0): what a person who just saw "bought"
/// waits for the alert.
struct EventToAlertLoad {
    let endpoint: String
    let alertsEndpoint: String
    /// The shopper's access token; the alerts are theirs.
    let token: String
    /// Lists to add the items to, at most `itemsPerList` each.
    let lists: [Int64]
    let rate: Int
    let warmup: Duration
    let measured: Duration
    /// Keys of this run, so a second run on the same stack is not answered from the first's.
    let run: String

    static let itemsPerList = 400
    /// Item names the purchases cycle through: the first purchase of each has nothing to be
    /// compared with, so no alert, and is never measured.
    static let names = 50

    /// How many purchases a run makes, and so how many items it needs.
    static func purchases(rate: Int, warmup: Duration, measured: Duration) -> Int {
        Int((Double(rate) * (warmup + measured).seconds).rounded(.up))
    }

    func run(context: ZMQContext) async throws -> PipelinedLoad.Outcome {
        try await DedicatedThread.run(name: "bench-alerts") { [self] in try drive(context: context) }
    }

    private func drive(context: ZMQContext) throws -> PipelinedLoad.Outcome {
        let clock = ContinuousClock()
        let alerts = try ZMQSocket(context: context, type: .sub)
        defer { alerts.close() }
        try alerts.setHighWaterMarks(send: 1000, receive: 0)
        try alerts.subscribe(Data(NotifierTopic.alertPrefix.utf8))
        try alerts.subscribe(Data(NotifierTopic.heartbeat.utf8))
        try alerts.connect(alertsEndpoint)
        let client = try ZMQSocket(context: context, type: .dealer)
        defer { client.close() }
        try client.setHighWaterMarks(send: 0, receive: 0)
        try client.connect(endpoint)

        // The notifier's heartbeat says the subscription has reached it: no alert is missed
        // from here on.
        try awaitHeartbeat(alerts, until: clock.now + .seconds(30))
        let total = Self.purchases(rate: rate, warmup: warmup, measured: measured)
        let items = try addItems(total, through: client)

        var itemIndex: [Int64: Int] = [:]
        for (index, item) in items.enumerated() { itemIndex[item] = index }
        var acknowledged = [ContinuousClock.Instant?](repeating: nil, count: total)
        var alerted = [ContinuousClock.Instant?](repeating: nil, count: total)
        var outcome = PipelinedLoad.Outcome()
        let firstMeasured = max(Int((Double(rate) * warmup.seconds).rounded(.up)), Self.names)
        // Measured purchases whose alert has not come: counted, not searched for on every turn of
        // the loop (4,000 slots at 1,000 a second), since this thread's time is the machine's too.
        var awaited = total - firstMeasured
        let start = clock.now
        var next = 0
        var answered = 0
        var lastSent = start
        var poller = ZMQPoller()
        let clientIndex = poller.add(client)
        let alertsIndex = poller.add(alerts)
        while true {
            let now = clock.now
            while next < total, now >= start + .seconds(Double(next) / Double(rate)) {
                try client.send([Data(), purchase(next, item: items[next])])
                lastSent = now
                next += 1
            }
            let done = next == total && answered == total
            // Alerts still missing two seconds after the last answer are lost, and counted so.
            if done && (awaited == 0 || now >= lastSent + .seconds(2)) { break }
            if now >= lastSent + .seconds(30) { throw BenchmarkError("purchases unanswered 30 s after the last was sent") }
            let wait = next < total ? max(.zero, start + .seconds(Double(next) / Double(rate)) - now) : .milliseconds(50)
            try poller.poll(timeout: wait)
            if poller.isReadable(clientIndex) {
                while let frames = try client.receive(dontWait: true) {
                    guard let reply = frames.last, let (index, isError) = PipelinedLoad.head(of: reply), index < total else {
                        throw BenchmarkError("a purchase reply without its id: \(frames.map { String(decoding: $0.prefix(200), as: UTF8.self) })")
                    }
                    answered += 1
                    acknowledged[index] = clock.now
                    if isError {
                        outcome.errors += 1
                        if outcome.firstError == nil { outcome.firstError = String(decoding: reply.prefix(300), as: UTF8.self) }
                    }
                }
            }
            if poller.isReadable(alertsIndex) {
                // What the poll found arrived by now: one reading of the clock for all of it, before
                // the time spent reading them.
                let arrived = clock.now
                while let frames = try alerts.receive(dontWait: true) {
                    guard frames.count == 2, frames[0] != Data(NotifierTopic.heartbeat.utf8),
                        let alert = try? JSONReader.parse(frames[1]),
                        let item = alert["data"]?["item_id"]?.intValue, let index = itemIndex[item], alerted[index] == nil
                    else { continue }
                    alerted[index] = arrived
                    if index >= firstMeasured { awaited -= 1 }
                }
            }
        }
        var missing = 0
        for index in firstMeasured..<total {
            guard let acknowledgedAt = acknowledged[index] else { continue }
            guard let alertedAt = alerted[index] else {
                missing += 1
                continue
            }
            outcome.completed += 1
            _ = outcome.latency.record(alertedAt > acknowledgedAt ? (alertedAt - acknowledgedAt).microseconds : 0)
        }
        if missing > 0 {
            outcome.errors += missing
            outcome.firstError = outcome.firstError ?? "\(missing) purchases had no alert 2 s after the last answer"
        }
        outcome.elapsed = .seconds(Double(total - firstMeasured) / Double(rate))
        return outcome
    }

    /// Reads until the notifier's first heartbeat.
    private func awaitHeartbeat(_ socket: ZMQSocket, until deadline: ContinuousClock.Instant) throws {
        let clock = ContinuousClock()
        var poller = ZMQPoller()
        poller.add(socket)
        while clock.now < deadline {
            try poller.poll(timeout: deadline - clock.now)
            while let frames = try socket.receive(dontWait: true) {
                if frames.first == Data(NotifierTopic.heartbeat.utf8) { return }
            }
        }
        throw BenchmarkError("no heartbeat from the notifier at \(alertsEndpoint) within 30 s")
    }

    /// Adds `count` items, 32 at a time, and returns their ids in order. Item `index` is named
    /// after `index % names`.
    private func addItems(_ count: Int, through client: ZMQSocket) throws -> [Int64] {
        guard lists.count * Self.itemsPerList >= count else {
            throw BenchmarkError("\(lists.count) lists hold \(lists.count * Self.itemsPerList) items, not \(count)")
        }
        var ids = [Int64?](repeating: nil, count: count)
        var sent = 0
        var received = 0
        var poller = ZMQPoller()
        poller.add(client)
        while received < count {
            while sent < count, sent - received < 32 {
                let body = #"{"id":"\#(sent)","command":"shopping.add_item","idempotency_key":"bench-\#(run)-alert-item-\#(sent)","token":"\#(token)","args":{"list_id":\#(lists[sent / Self.itemsPerList]),"name":"Bench item \#(sent % Self.names)"}}"#
                try client.send([Data(), Data(body.utf8)])
                sent += 1
            }
            try poller.poll(timeout: .seconds(10))
            guard poller.isReadable(0) else { throw BenchmarkError("shopping.add_item unanswered for 10 s") }
            while let frames = try client.receive(dontWait: true) {
                guard let body = frames.last, let index = PipelinedLoad.slot(of: body), index < count,
                    let reply = try? Reply.decode(body), let id = reply.result?["item"]?["id"]?.intValue
                else {
                    throw BenchmarkError("shopping.add_item failed: \(String(decoding: (frames.last ?? Data()).prefix(300), as: UTF8.self))")
                }
                ids[index] = id
                received += 1
            }
        }
        return ids.map { $0! }
    }

    /// Purchase `index`: its item bought at 1.00 EUR plus a cent per purchase, so every purchase
    /// of a name differs from the one before it.
    private func purchase(_ index: Int, item: Int64) -> Data {
        let cents = 100 + index
        let price = "\(cents / 100).\(cents % 100 < 10 ? "0" : "")\(cents % 100)"
        let list = lists[index / Self.itemsPerList]
        return Data(
            #"{"id":"\#(index)","command":"shopping.mark_purchased","idempotency_key":"bench-\#(run)-alert-buy-\#(index)","token":"\#(token)","args":{"list_id":\#(list),"item_id":\#(item),"unit_price":"\#(price)"}}"#.utf8)
    }
}
