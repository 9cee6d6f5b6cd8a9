import Foundation
import Logging
import ZeroMQ

/// Runs a worker's requests on a thread of its own, so the worker's socket thread keeps
/// heartbeating while a slow command runs and the gateway does not take a busy worker for dead.
///
/// The two threads talk over an inproc PAIR, each owning its end (one socket, one thread):
/// the socket thread sends `[client, body...]`, the handler thread answers `[client, reply]`;
/// an empty message tells the handler thread to leave.
final class HandlerThread {
    /// The socket thread's end; poll it for finished requests.
    let socket: ZMQSocket
    private let finished = DispatchSemaphore(value: 0)
    private(set) var isBusy = false

    /// - Parameter delay: a pause before each request, for tests only (see `WorkerConfiguration.handlingDelay`).
    init(context: ZMQContext, processor: RequestProcessor, delay: Duration, name: String) throws {
        let endpoint = "inproc://tally-handler-\(UUID().uuidString)"
        socket = try ZMQSocket(context: context, type: .pair)
        try socket.bind(endpoint)
        let finished = finished
        let thread = Thread {
            defer { finished.signal() }
            do {
                let pair = try ZMQSocket(context: context, type: .pair)
                defer { pair.close() }
                try pair.connect(endpoint)
                while let frames = try pair.receive(), frames.count >= 2 {
                    if delay > .zero { Thread.sleep(forTimeInterval: Double(delay.roundedUpMilliseconds) / 1000) }
                    try pair.send([frames[0], processor.process(Array(frames[1...]))])
                }
            } catch {
                processor.logger.error("handler thread stopped", metadata: ["error": "\(error)"])
            }
        }
        thread.name = name
        thread.start()
    }

    /// Hands a request over. Only one at a time, as in 7/MDP.
    func submit(client: Data, body: [Data]) throws {
        precondition(!isBusy, "one request at a time")
        try socket.send([client] + body)
        isBusy = true
    }

    /// The finished request, if one is waiting.
    func takeReply() throws -> (client: Data, reply: Data)? {
        guard let frames = try socket.receive(dontWait: true), frames.count == 2 else { return nil }
        isBusy = false
        return (frames[0], frames[1])
    }

    /// Waits for the request in hand (if any) to finish and returns its reply.
    func finish() throws -> (client: Data, reply: Data)? {
        guard isBusy, let frames = try socket.receive(), frames.count == 2 else { return nil }
        isBusy = false
        return (frames[0], frames[1])
    }

    /// Stops the handler thread and waits for it to close its end, then closes ours.
    func stop() {
        _ = try? socket.send([Data()])
        finished.wait()
        socket.close()
    }
}
