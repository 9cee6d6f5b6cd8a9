import Foundation
import TallyTesting
import ZeroMQ

/// A 7/MDP worker written from the frame layout of the specification alone (no Tally protocol
/// code): READY = "", "MDPW01", 0x01, service; REQUEST = "", "MDPW01", 0x02, client, "", body;
/// REPLY = "", "MDPW01", 0x03, client, "", body; HEARTBEAT = 0x04; DISCONNECT = 0x05.
/// It proves a worker in any language can serve through the gateway, and lets tests play a
/// worker that never answers or that dies holding a request.
final class RawMajordomoWorker: @unchecked Sendable {
    enum Behaviour: Sendable {
        /// Answer every request with what the closure returns for its (first) body frame.
        case reply(@Sendable (Data) -> Data)
        /// The same, with Tally's outcome frame before the delimiter (docs/protocol.md, 6.1):
        /// REPLY = "", "MDPW01", 0x03, client, outcome, "", body.
        case replyWithOutcome(@Sendable (Data) -> (outcome: String, body: Data))
        /// Answer every request with its body frames, untouched, as the guide's echo worker does.
        case echo
        /// Keep every request and never answer it.
        case swallow
    }

    let service: String
    /// Frames READY carries after the service name: Tally's extensions (capacity, description).
    let readyExtras: [Data]
    private let behaviour: Behaviour
    private let stopSignal = WakeupSignal()
    private let lock = NSLock()
    private var requests: [Data] = []
    private var crash = false
    private var task: Task<Void, Error>?

    init(service: String, behaviour: Behaviour, readyExtras: [Data] = []) {
        self.service = service
        self.readyExtras = readyExtras
        self.behaviour = behaviour
    }

    var received: [Data] { lock.withLock { requests } }

    func start(endpoint: String, context: ZMQContext) {
        let stop = stopSignal
        task = Task {
            try await DedicatedThread.run(name: "raw-mdp-worker", stoppingWith: stop) {
                try self.serve(endpoint: endpoint, context: context)
            }
        }
    }

    /// Stops like a crash: the socket just closes, without DISCONNECT.
    func crashNow() async throws {
        lock.withLock { crash = true }
        stopSignal.fire()
        try await task?.value
    }

    /// Stops politely, with DISCONNECT.
    func stop() async throws {
        stopSignal.fire()
        try await task?.value
    }

    private func serve(endpoint: String, context: ZMQContext) throws {
        let header = Data("MDPW01".utf8)
        let socket = try ZMQSocket(context: context, type: .dealer)
        defer { socket.close() }
        try socket.connect(endpoint)
        try socket.send([Data(), header, Data([0x01]), Data(service.utf8)] + readyExtras)
        let clock = ContinuousClock()
        var heartbeatAt = clock.now + .milliseconds(100)
        while !stopSignal.isFired {
            var poller = ZMQPoller()
            poller.add(socket)
            poller.add(fileDescriptor: stopSignal.fileDescriptor)
            try poller.poll(timeout: .milliseconds(50))
            while let frames = try socket.receive(dontWait: true) {
                guard frames.count >= 3, frames[0].isEmpty, frames[1] == header else { continue }
                if frames[2] == Data([0x02]), frames.count >= 6, frames[4].isEmpty {
                    let client = frames[3]
                    let body = Array(frames[5...])
                    lock.withLock { requests.append(body[0]) }
                    switch behaviour {
                    case .reply(let answer): try socket.send([Data(), header, Data([0x03]), client, Data(), answer(body[0])])
                    case .replyWithOutcome(let answer):
                        let (outcome, reply) = answer(body[0])
                        try socket.send([Data(), header, Data([0x03]), client, Data(outcome.utf8), Data(), reply])
                    case .echo: try socket.send([Data(), header, Data([0x03]), client, Data()] + body)
                    case .swallow: break
                    }
                }
            }
            if clock.now >= heartbeatAt {
                try socket.send([Data(), header, Data([0x04])])
                heartbeatAt = clock.now + .milliseconds(100)
            }
        }
        if !lock.withLock({ crash }) {
            try socket.setLinger(milliseconds: 500)
            try socket.send([Data(), header, Data([0x05])])
        }
    }
}

extension TallyStack {
    /// Starts a raw worker on this stack's backend and waits until the gateway counts it.
    func rawWorker(
        _ service: String, _ behaviour: RawMajordomoWorker.Behaviour, readyExtras: [Data] = [], expectWorkers: Int = 1
    ) async throws -> RawMajordomoWorker {
        let worker = RawMajordomoWorker(service: service, behaviour: behaviour, readyExtras: readyExtras)
        worker.start(endpoint: backend, context: context)
        try await waitForWorkers(service, count: expectWorkers)
        return worker
    }
}
