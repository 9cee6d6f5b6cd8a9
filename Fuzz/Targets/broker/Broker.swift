import Foundation
import FuzzSupport
import Logging
import TallyCatalog
@testable import TallyGateway
import TallyProtocol

/// The gateway's broker as its sockets drive it: a run of messages from clients and workers (each
/// with the identity frame a ROUTER puts first), with the broker's timers ticking between them
/// and sends that find a peer there, full, or gone. It covers what reads client frames
/// (`ClientRequest`, the size checks, `EnvelopeHead`, 8/MMI), what reads worker frames
/// (`Majordomo.WorkerMessage`, READY's capacity, replies and their tokens), dispatch, held replies,
/// deadlines and heartbeats. Every message the broker sends goes to a peer that spoke to it, and
/// every message it sends a worker is one a worker reads (`Majordomo.BrokerMessage`).
///
/// The input is a series of messages, each: a control byte (bit 0: from a worker rather than a
/// client; bits 1-2: which of four peers; bits 3-4: sends meanwhile are sent, sent, full or gone;
/// bit 5: the timers tick afterwards), a frame count (0 to 7), then the frames, each a length byte
/// and that many bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBroker(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    Fuzz.onSocketThread(start, count) { input in
        let transport = RecordingTransport()
        let broker = Broker(configuration: configuration, transport: transport, logger: logger)
        var reader = input[...]
        while let control = reader.popFirst() {
            let fromWorker = control & 1 == 1
            let peer = Data(((fromWorker ? "w" : "c") + String((control >> 1) & 3)).utf8)
            transport.outcome = [.sent, .sent, .full, .gone][Int((control >> 3) & 3)]
            var frames = [peer]
            for _ in 0..<Int(reader.popFirst() ?? 0) % 8 {
                let length = Int(reader.popFirst() ?? 0)
                frames.append(Data(reader.prefix(length)))
                reader = reader.dropFirst(length)
            }
            if fromWorker { broker.handleWorker(frames) } else { broker.handleClient(frames) }
            if control & 0x20 != 0 { broker.tick() }
        }
        broker.shutdown()
    }
}

/// Settings that let every path run within one input: heartbeats and worker expiry come due within
/// a millisecond, and a request of a few hundred bytes may be too large.
private let configuration = GatewayConfiguration(
    heartbeatInterval: .milliseconds(1), liveness: 1, maximumMessageBytes: 300, defaultDeadline: .milliseconds(1),
    maximumQueueDepth: 4, maximumHeldReplies: 3, catalog: ServiceCatalog.commands, schemas: ServiceCatalog.schemas)

private let logger: Logger = {
    var logger = Logger(label: "tally.fuzz.broker")
    logger.logLevel = .critical
    return logger
}()

/// Records what the broker sends, and checks it on the way.
private final class RecordingTransport: BrokerTransport {
    var outcome = SendOutcome.sent

    func sendToClient(_ frames: [Data]) -> SendOutcome {
        Fuzz.require(frames.first.map { $0.first == UInt8(ascii: "c") } == true, "a message to a client that never spoke: \(frames)")
        Fuzz.require(frames.count >= 2, "a message to a client without a body: \(frames)")
        return outcome
    }

    func sendToWorker(_ frames: [Data]) -> SendOutcome {
        Fuzz.require(frames.first.map { $0.first == UInt8(ascii: "w") } == true, "a message to a worker that never spoke: \(frames)")
        Fuzz.require(Majordomo.BrokerMessage(frames: Array(frames.dropFirst())) != nil, "a message to a worker that it cannot read: \(frames)")
        return outcome
    }
}
