import Foundation
import ZeroMQ

/// The limit for a brokered request on this machine: a ROUTER/ROUTER relay and one echo worker
/// over the project's own ZeroMQ layer, with no JSON and no logic, each on a thread of its own.
///
/// The relay does what any broker must: read the client's message, put the worker's address in
/// front, send it on; read the worker's answer, put the client's address in front, send it back.
/// The echo worker sends back what it got. What Tally's path costs beyond this is the price of
/// the protocol, the JSON and the service.
final class BareRelay: Sendable {
    let frontend: String
    let backend: String
    private let context: ZMQContext
    private let stop = WakeupSignal()
    private let finished = DispatchGroup()

    init(context: ZMQContext, directory: URL) {
        self.context = context
        frontend = "ipc://\(directory.path)/relay-frontend"
        backend = "ipc://\(directory.path)/relay-backend"
    }

    /// Starts the relay and the echo worker, and returns once the worker has registered.
    func start() async throws {
        let ready = DispatchSemaphore(value: 0)
        let relayError = ThreadOutcome()
        spawn("bench-relay", relayError) { [self] in
            do { try relay(workerArrived: ready) } catch {
                ready.signal()
                throw error
            }
        }
        spawn("bench-echo", ThreadOutcome()) { [self] in try echo() }
        try await DedicatedThread.run(name: "bench-relay-start") { ready.wait() }
        if let error = relayError.error { throw error }
    }

    func shutdown() async throws {
        stop.fire()
        try await DedicatedThread.run(name: "bench-relay-stop") { [finished] in finished.wait() }
    }

    private func spawn(_ name: String, _ outcome: ThreadOutcome, _ body: @escaping @Sendable () throws -> Void) {
        finished.enter()
        let thread = Thread { [finished] in
            defer { finished.leave() }
            do { try body() } catch { outcome.error = error }
        }
        thread.name = name
        thread.start()
    }

    private func relay(workerArrived: DispatchSemaphore) throws {
        let clients = try ZMQSocket(context: context, type: .router)
        let workers = try ZMQSocket(context: context, type: .router)
        defer {
            clients.close()
            workers.close()
        }
        for socket in [clients, workers] { try socket.setHighWaterMarks(send: 0, receive: 0) }
        try clients.bind(frontend)
        try workers.bind(backend)
        var poller = ZMQPoller()
        let clientIndex = poller.add(clients)
        let workerIndex = poller.add(workers)
        poller.add(fileDescriptor: stop.fileDescriptor)
        var worker: Data?
        while !stop.isFired {
            try poller.poll(timeoutMilliseconds: 100)
            if poller.isReadable(workerIndex) {
                // [worker, client, "", body] → [client, "", body]; the first message is [worker, "READY"].
                while var frames = try workers.receive(dontWait: true) {
                    if worker == nil {
                        worker = frames[0]
                        workerArrived.signal()
                        continue
                    }
                    frames.removeFirst()
                    try clients.send(frames)
                }
            }
            if poller.isReadable(clientIndex), let worker {
                // [client, "", body] → [worker, client, "", body]
                while let frames = try clients.receive(dontWait: true) {
                    try workers.send([worker] + frames)
                }
            }
        }
    }

    private func echo() throws {
        let socket = try ZMQSocket(context: context, type: .dealer)
        defer { socket.close() }
        try socket.setHighWaterMarks(send: 0, receive: 0)
        try socket.connect(backend)
        try socket.send([Data("READY".utf8)])
        var poller = ZMQPoller()
        poller.add(socket)
        poller.add(fileDescriptor: stop.fileDescriptor)
        while !stop.isFired {
            try poller.poll(timeoutMilliseconds: 100)
            while let frames = try socket.receive(dontWait: true) { try socket.send(frames) }
        }
    }
}

/// An error a thread ended with, read by the thread that waited for it.
final class ThreadOutcome: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Error?
    var error: Error? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
