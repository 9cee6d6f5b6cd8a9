import Foundation

/// The frame layout of ZeroMQ's Majordomo Protocol, 7/MDP (MDP/0.1), and Tally's plain JSON clients.
public enum Majordomo {
    /// Client protocol header, frame 1 of a client request after the empty delimiter.
    public static let clientHeader = Data("MDPC01".utf8)
    /// Worker protocol header, frame 1 of every worker message after the empty delimiter.
    public static let workerHeader = Data("MDPW01".utf8)

    /// The first body frame of a reply the gateway writes itself to a 7/MDP client of a service
    /// Tally does not define (whose workers' replies it passes on untouched); the code and the
    /// message follow in two more frames. Workers must not begin a reply with this frame.
    public static let gatewayErrorMarker = Data("TALLY-GATEWAY-ERROR".utf8)

    /// Whether `name` is a service name Tally accepts, from a worker's READY or a client's
    /// service frame: 1 to 255 visible ASCII characters (`calc`, `my-echo`, `Echo`, `echo.v2`).
    /// No spaces, control characters or non-ASCII text: names are matched byte for byte, and
    /// Unicode writes many names that print the same in more than one way.
    public static func isValidServiceName(_ name: Data) -> Bool {
        (1...255).contains(name.count) && name.allSatisfy { (0x21...0x7E).contains($0) }
    }

    /// The connection property (from the ZAP handler's reply, under CURVE) that lists the services
    /// a worker's key may register for, comma-separated, or "*" for any.
    public static let workerServicesProperty = "X-Tally-Services"

    /// Services the gateway answers itself: `system` and 8/MMI's `mmi`, with anything under them
    /// (`mmi.service`, `system.x`). No worker may register one.
    public static func isGatewayService(_ name: String) -> Bool {
        let first = name.utf8.prefix { $0 != UInt8(ascii: ".") }
        return first.elementsEqual("system".utf8) || first.elementsEqual("mmi".utf8)
    }

    /// Commands of the worker protocol, one byte in frame 2.
    public enum WorkerCommand: UInt8, Sendable {
        case ready = 0x01
        case request = 0x02
        case reply = 0x03
        case heartbeat = 0x04
        case disconnect = 0x05

        public var frame: Data { Data([rawValue]) }
    }

    /// The most requests a worker may hold at once (`WorkerMessage.ready`'s capacity).
    public static let maximumCapacity = 1000

    /// The most body frames a request or reply may carry. 7/MDP sets no bound, but a message of a
    /// million empty frames costs the reader a million allocations; Tally's own bodies are one
    /// frame, and other services' clients get room to spare. Past it a message is malformed.
    public static let maximumBodyFrames = 64

    /// A message a worker sent to the broker, as a DEALER would put it (no identity frame).
    public enum WorkerMessage: Equatable, Sendable {
        /// 7/MDP's READY, and Tally's two extensions of it, optional frames after the service
        /// name: the decimal number of requests the worker takes at once (1 to
        /// `maximumCapacity`), then a JSON object describing the service's commands
        /// (`WorkerDescription`, read by the gateway; here only its first byte, `{`, is checked).
        /// A broker that does not know the frames ignores them and sends one request at a time,
        /// as 7/MDP says; without a capacity, Tally's gateway does the same.
        /// A last frame, the ASCII `traceparent`, is the fifth extension: the worker takes a
        /// REQUEST with the gateway's trace context in a frame between the client token and the
        /// delimiter (`BrokerMessage.request`'s `traceparent`).
        case ready(service: String, capacity: Int = 1, description: Data? = nil, takesTraceContext: Bool = false)
        case reply(client: Data, body: [Data])
        /// Tally's extension of REPLY, for a broker that asked for it (`BrokerMessage.welcome`): one
        /// frame between the client token and the delimiter, the reply's outcome, `ok` or the error
        /// code (`not_found`), so the broker counts errors without reading the body. A worker that
        /// never sends it still works; its replies are counted as answered, not as errors.
        case replyWithOutcome(client: Data, outcome: String, body: [Data])
        case heartbeat
        case disconnect
        /// Tally's extension of DISCONNECT, one frame after the command: `drain`. The worker is
        /// leaving, but keeps answering whatever REQUEST reaches it until the broker acknowledges
        /// with a DISCONNECT of its own, after which the broker sends it nothing. So a request the
        /// broker sent as the worker decided to leave is answered by that worker, never lost in
        /// between. A broker that does not know the frame takes it for a plain DISCONNECT (the
        /// guide's `mdbroker` does) and sends nothing back; the worker then leaves after waiting
        /// as long as it would for a silent broker.
        case drain

        /// Parses frames `"", "MDPW01", command, ...`; `nil` for anything that is not valid 7/MDP.
        public init?(frames: ArraySlice<Data>) {
            var frames = frames
            guard frames.count >= 3, frames.removeFirst().isEmpty, frames.removeFirst() == Majordomo.workerHeader,
                let commandFrame = frames.popFirst(), commandFrame.count == 1,
                let command = WorkerCommand(rawValue: commandFrame.first!)
            else { return nil }
            switch command {
            case .ready:
                guard (1...4).contains(frames.count), let name = String(data: frames.removeFirst(), encoding: .utf8), !name.isEmpty
                else { return nil }
                let takesTraceContext = frames.last == Majordomo.traceContextFrame
                if takesTraceContext { frames.removeLast() }
                var description: Data?
                if let last = frames.last, last.first == UInt8(ascii: "{") {
                    description = last
                    frames.removeLast()
                }
                var capacity = 1
                if let digits = frames.popFirst() {
                    guard frames.isEmpty, (1...4).contains(digits.count),
                        digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                        let value = Int(String(decoding: digits, as: UTF8.self)), (1...Majordomo.maximumCapacity).contains(value)
                    else { return nil }
                    capacity = value
                }
                self = .ready(service: name, capacity: capacity, description: description, takesTraceContext: takesTraceContext)
            case .reply:
                // client address, [outcome,] empty delimiter, body frames
                let start = frames.startIndex
                guard frames.count >= 3 else { return nil }
                if frames[start + 1].isEmpty {
                    guard frames.count - 2 <= Majordomo.maximumBodyFrames else { return nil }
                    self = .reply(client: frames.first!, body: Array(frames.dropFirst(2)))
                } else {
                    guard frames.count >= 4, frames.count - 3 <= Majordomo.maximumBodyFrames, frames[start + 2].isEmpty,
                        let outcome = Majordomo.outcome(frames[start + 1])
                    else { return nil }
                    self = .replyWithOutcome(client: frames.first!, outcome: outcome, body: Array(frames.dropFirst(3)))
                }
            case .heartbeat:
                guard frames.isEmpty else { return nil }
                self = .heartbeat
            case .disconnect:
                switch frames.first {
                case nil: self = .disconnect
                case Majordomo.drainFrame? where frames.count == 1: self = .drain
                default: return nil
                }
            case .request:
                return nil
            }
        }

        public var frames: [Data] {
            switch self {
            case .ready(let service, let capacity, let description, let takesTraceContext):
                [Data(), workerHeader, WorkerCommand.ready.frame, Data(service.utf8)]
                    + (capacity == 1 ? [] : [Data(String(capacity).utf8)]) + (description.map { [$0] } ?? [])
                    + (takesTraceContext ? [traceContextFrame] : [])
            case .reply(let client, let body): [Data(), workerHeader, WorkerCommand.reply.frame, client, Data()] + body
            case .replyWithOutcome(let client, let outcome, let body):
                [Data(), workerHeader, WorkerCommand.reply.frame, client, Data(outcome.utf8), Data()] + body
            case .heartbeat: [Data(), workerHeader, WorkerCommand.heartbeat.frame]
            case .disconnect: [Data(), workerHeader, WorkerCommand.disconnect.frame]
            case .drain: [Data(), workerHeader, WorkerCommand.disconnect.frame, drainFrame]
            }
        }
    }

    /// The frame after DISCONNECT that makes it Tally's `WorkerMessage.drain`.
    public static let drainFrame = Data("drain".utf8)

    /// The last frame of a READY that asks for the gateway's trace context in each REQUEST.
    public static let traceContextFrame = Data("traceparent".utf8)

    /// The frame after HEARTBEAT that makes it Tally's `BrokerMessage.welcome`.
    public static let outcomeFrame = Data("outcome".utf8)

    /// A REPLY's outcome frame as text: `ok` or an error code, 1 to 32 lower-case letters and `_`.
    static func outcome(_ frame: Data) -> String? {
        guard (1...32).contains(frame.count),
            frame.allSatisfy({ (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || $0 == UInt8(ascii: "_") })
        else { return nil }
        return String(decoding: frame, as: UTF8.self)
    }

    /// A message the broker sent to a worker.
    public enum BrokerMessage: Equatable, Sendable {
        /// `traceparent`: the W3C trace context of the gateway's span for the request, one frame
        /// between the client token and the delimiter, sent only to a worker whose READY asked
        /// for it and only while the gateway traces.
        case request(client: Data, traceparent: Data? = nil, body: [Data])
        case heartbeat
        case disconnect
        /// Tally's extension of HEARTBEAT, the broker's answer to READY with one more frame,
        /// `outcome`: the worker is registered, and the broker takes each REPLY's outcome
        /// (`WorkerMessage.replyWithOutcome`). A worker that does not know the frame takes it for a
        /// heartbeat (the guide's `mdwrkapi` does).
        case welcome

        public init?(frames: [Data]) {
            guard frames.count >= 3, frames[0].isEmpty, frames[1] == Majordomo.workerHeader, frames[2].count == 1,
                let command = WorkerCommand(rawValue: frames[2].first!)
            else { return nil }
            switch command {
            case .request:
                guard frames.count >= 6 else { return nil }
                if frames[4].isEmpty {
                    guard frames.count - 5 <= Majordomo.maximumBodyFrames else { return nil }
                    self = .request(client: frames[3], body: Array(frames[5...]))
                } else {
                    guard frames.count >= 7, frames.count - 6 <= Majordomo.maximumBodyFrames, frames[5].isEmpty else { return nil }
                    self = .request(client: frames[3], traceparent: frames[4], body: Array(frames[6...]))
                }
            case .heartbeat:
                switch frames.count {
                case 3: self = .heartbeat
                case 4 where frames[3] == Majordomo.outcomeFrame: self = .welcome
                default: return nil
                }
            case .disconnect:
                guard frames.count == 3 else { return nil }
                self = .disconnect
            default: return nil
            }
        }

        /// The frames a REQUEST starts with, before the client token, the delimiter and the body.
        public static let requestHeader = [Data(), workerHeader, WorkerCommand.request.frame]

        public var frames: [Data] {
            switch self {
            case .request(let client, let traceparent, let body):
                [Data(), workerHeader, WorkerCommand.request.frame, client] + (traceparent.map { [$0] } ?? []) + [Data()] + body
            case .heartbeat: [Data(), workerHeader, WorkerCommand.heartbeat.frame]
            case .disconnect: [Data(), workerHeader, WorkerCommand.disconnect.frame]
            case .welcome: [Data(), workerHeader, WorkerCommand.heartbeat.frame, outcomeFrame]
            }
        }
    }
}
