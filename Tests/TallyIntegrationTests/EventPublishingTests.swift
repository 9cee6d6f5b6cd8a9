import Foundation
import TallyProtocol
import TallyTesting
import Testing
import ZeroMQ

/// Workers publish committed events on PUB: two frames, `[type, CloudEvent JSON]`.
@Suite struct EventPublishingTests {
    @Test func anAccountsWorkerPublishesWhatItCommits() async throws {
        let stack = try TallyStack()
        do {
            try await stack.startGateway()
            let stop = WakeupSignal()
            let arrived = ReceivedFrames()
            // The test plays the notifier's inlet: a SUB bound where the workers publish.
            let inlet = Task {
                try await DedicatedThread.run(name: "test-inlet", stoppingWith: stop) { [context = stack.context, endpoint = stack.events] in
                    let socket = try ZMQSocket(context: context, type: .sub)
                    defer { socket.close() }
                    try socket.bind(endpoint)
                    try socket.subscribe(Data("accounts.".utf8))
                    var poller = ZMQPoller()
                    poller.add(socket)
                    poller.add(fileDescriptor: stop.fileDescriptor)
                    while !stop.isFired, arrived.frames == nil {
                        try poller.poll(timeout: .milliseconds(100))
                        if let frames = try socket.receive(dontWait: true) { arrived.frames = frames }
                    }
                }
            }
            try stack.startWorker("accounts")
            try await stack.waitForWorkers("accounts", count: 1)
            let client = try stack.client()
            // PUB/SUB drops what is published before the subscription reaches the publisher, so
            // keep changing things until one event arrives.
            for attempt in 1...100 where arrived.frames == nil {
                let reply = try await client.call(
                    "accounts.create", ["name": .string("Pot \(attempt)"), "starting_balance": "1", "currency": "EUR"],
                    token: try stack.accessToken(for: "ann", userID: "2"))
                #expect(reply.isOK, "\(reply)")
                try await Task.sleep(for: .milliseconds(50))
            }
            stop.fire()
            try await inlet.value
            let frames = try #require(arrived.frames, "no event reached the inlet\n\(stack.logs)")
            #expect(frames.count == 2)
            #expect(String(decoding: frames[0], as: UTF8.self) == "accounts.account_created")
            let event = try TallyJSON.decode(CloudEvent.self, from: frames[1])
            #expect(event.type == "accounts.account_created" && event.source == "tally/accounts" && event.subject == "2")
            #expect(event.data["owner"] == "2", "the caller's user id")
            // The same event is in the outbox, with the same id.
            let feed = try await client.call(
                "accounts.events", ["after": .integer(event.sequence - 1), "limit": 1], token: try stack.serviceAccessToken())
            #expect(feed.result?["events"]?[0]?["id"]?.stringValue == event.id, "\(feed)")
        } catch {
            await stack.stop()
            throw error
        }
        await stack.stop()
    }

    /// A worker given two notifiers' inlets sends every event to both (PUB fans out; a PUSH
    /// would deal them out between the two).
    @Test func aWorkerGivenTwoInletsPublishesEveryEventToEach() async throws {
        let stack = try TallyStack()
        let stop = WakeupSignal()
        var inlets: [Task<Void, Error>] = []
        do {
            try await stack.startGateway()
            let endpoints = [stack.events, "\(stack.events)-second"]
            let received = [EventSequences(), EventSequences()]
            // The test plays two notifiers' inlets: SUB sockets bound where the worker publishes.
            for (endpoint, ids) in zip(endpoints, received) {
                inlets.append(Task {
                    try await DedicatedThread.run(name: "test-inlet", stoppingWith: stop) { [context = stack.context] in
                        let socket = try ZMQSocket(context: context, type: .sub)
                        defer { socket.close() }
                        try socket.setLinger(milliseconds: 0)
                        try socket.bind(endpoint)
                        try socket.subscribe(Data("accounts.".utf8))
                        while !stop.isFired {
                            var poller = ZMQPoller()
                            poller.add(socket)
                            poller.add(fileDescriptor: stop.fileDescriptor)
                            try poller.poll(timeout: .milliseconds(100))
                            while let frames = try socket.receive(dontWait: true) {
                                if let body = frames.last, let event = try? CloudEvent.decode(body) { ids.add(event.sequence) }
                            }
                        }
                    }
                })
            }
            try stack.startWorker("accounts", extraArguments: ["--events-endpoint", endpoints.joined(separator: ",")])
            try await stack.waitForWorkers("accounts", count: 1)
            let client = try stack.client()
            let token = try stack.accessToken(for: "ann", userID: "2")
            let create: @Sendable (String) async throws -> Void = { name in
                let reply = try await client.call(
                    "accounts.create", ["name": .string(name), "starting_balance": "1", "currency": "EUR"], token: token)
                #expect(reply.isOK, "\(reply)")
            }
            // PUB drops what it sends before a subscription reaches it: change things until both
            // inlets have had an event, so both subscriptions are in place.
            try await stack.waitUntil("both inlets receive an event", timeout: .seconds(30)) {
                if received.allSatisfy({ !$0.sequences.isEmpty }) { return true }
                try? await create("Warm-up \(UUID().uuidString.prefix(6))")
                return false
            }
            for number in 1...6 { try await create("Pot \(number)") }
            // The last six events in the outbox were committed after both subscriptions were in place.
            let feed = try await client.call("accounts.events", ["after": 0, "limit": 1], token: try stack.serviceAccessToken())
            let last = try #require(feed.result?["last_sequence"]?.intValue, "\(feed)")
            let newest = Set((last - 5)...last)
            try await stack.waitUntil("each inlet receives the six newest events", timeout: .seconds(20)) {
                received.allSatisfy { newest.isSubset(of: $0.sequences) }
            }
            #expect(received.allSatisfy { $0.sequences.count == Set($0.sequences).count }, "each event once at each")
        } catch {
            stop.fire()
            for inlet in inlets { _ = try? await inlet.value }
            await stack.stop()
            throw error
        }
        stop.fire()
        for inlet in inlets { try await inlet.value }
        await stack.stop()
    }

    @Test func aCrashBetweenCommitAndPublishKeepsTheEventAndTheRetryAddsNone() async throws {
        try await TallyStack.with() { stack in
            let doomed = try stack.startWorker("accounts", extraArguments: ["--exit-after-commit"])
            try await stack.waitForWorkers("accounts", count: 1)
            let client = try stack.client(timeout: .seconds(120))
            async let reply = client.call(
                "accounts.create", ["name": "Wallet", "starting_balance": "5", "currency": "EUR"],
                idempotencyKey: "create-wallet-1", token: try stack.accessToken(for: "bo"))
            // The timeout only guards against a hang: a loaded machine makes the exit late, not wrong.
            #expect(await doomed.waitForExit(timeout: .seconds(90)), "the worker exits right after its commit")
            try stack.startWorker("accounts")
            let answer = try await reply
            #expect(answer.result?["name"] == "Wallet", "the retry on the next worker returns the stored result: \(answer)")
            let feed = try await client.call("accounts.events", ["after": 0], token: try stack.serviceAccessToken())
            let types = feed.result?["events"]?.arrayValue?.compactMap { $0["type"]?.stringValue }
            #expect(types == ["accounts.account_created"], "one change, one event: \(feed)")
        }
    }
}

/// The first message a test socket received, set on its thread and read on the test's.
final class ReceivedFrames: @unchecked Sendable {
    private let lock = NSLock()
    private var value: [Data]?
    var frames: [Data]? {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}

/// The sequences of the events an inlet received, in order.
final class EventSequences: @unchecked Sendable {
    private let lock = NSLock()
    private var value: [Int64] = []
    func add(_ sequence: Int64) { lock.withLock { value.append(sequence) } }
    var sequences: [Int64] { lock.withLock { value } }
}
