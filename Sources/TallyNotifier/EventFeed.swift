import Foundation
import TallyClient
import TallyProtocol
import ZeroMQ

/// Where the notifier fetches events it has not seen: `<service>.events` with `after`.
public protocol EventFeed {
    func events(service: String, after: Int64, limit: Int) throws -> EventFeedPage
}

/// One answer of `<service>.events`.
public struct EventFeedPage: Decodable, Sendable {
    public var events: [CloudEvent]
    /// The highest sequence the service has stored (0: none).
    public var lastSequence: Int64

    public init(events: [CloudEvent], lastSequence: Int64) {
        self.events = events
        self.lastSequence = lastSequence
    }

    enum CodingKeys: String, CodingKey {
        case events
        case lastSequence = "last_sequence"
    }
}

/// Why a catch-up call failed.
public enum EventFeedError: Error, CustomStringConvertible {
    /// No reply in time: the gateway is down or unreachable.
    case gatewayUnreachable(String)
    /// The gateway or the service answered with an error (no such service, no worker in time...).
    case refused(TallyError)
    case malformed(String)

    public var description: String {
        switch self {
        case .gatewayUnreachable(let detail): "gateway unreachable: \(detail)"
        case .refused(let error): "\(error.code.rawValue): \(error.message)"
        case .malformed(let detail): "malformed events reply: \(detail)"
        }
    }
}

/// Calls `<service>.events` through the gateway with a Lazy Pirate REQ socket, synchronously,
/// on the calling thread (the notifier's inlet thread), bounded by `timeout`.
public struct GatewayEventFeed: EventFeed {
    let requester: LazyPirateRequester
    let stop: WakeupSignal?

    public init(context: ZMQContext, endpoint: String, timeout: Duration, stop: WakeupSignal?) {
        requester = LazyPirateRequester(context: context, endpoint: endpoint, timeout: timeout, tries: 1)
        self.stop = stop
    }

    public func events(service: String, after: Int64, limit: Int) throws -> EventFeedPage {
        // Ask the gateway (which answers 8/MMI itself, at once) whether the service has a live
        // worker: a request to a service without one would wait in the gateway's queue for the
        // whole timeout, and the inlet thread with it. (While it waits, the SUB socket attaches no
        // newly connected publisher, and what they send before it does is dropped by their PUB.)
        let live = try call("mmi.service", ["service": .string(service)])
        guard live["code"]?.stringValue == "200" else {
            throw EventFeedError.refused(TallyError(.unavailable, "no live \(service) worker (mmi.service)"))
        }
        let result = try call("\(service).events", ["after": .integer(after), "limit": .integer(Int64(limit))])
        do {
            return try JSONDecoder().decode(EventFeedPage.self, from: JSONEncoder.tally.encode(result))
        } catch {
            throw EventFeedError.malformed("\(error)")
        }
    }

    private func call(_ command: String, _ args: JSONValue) throws -> JSONValue {
        let envelope = Envelope(
            command: command, args: args,
            deadlineMilliseconds: TallyClient.deadline(forTimeout: requester.timeout).roundedUpMilliseconds)
        let frames: [Data]
        do {
            frames = try requester.request(envelope.encoded(), stop: stop)
        } catch {
            throw EventFeedError.gatewayUnreachable("\(error)")
        }
        guard frames.count == 1, let reply = try? Reply.decode(frames[0]) else {
            throw EventFeedError.malformed("\(frames.count) frames")
        }
        switch reply.outcome {
        case .failure(let error): throw EventFeedError.refused(error)
        case .success(let result): return result
        }
    }
}
