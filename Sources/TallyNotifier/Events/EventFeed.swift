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
    /// The history the service's database is in (`CloudEvent.epoch`), and the last sequence it
    /// had when that began: what it shares with the history before. Nil from a feed that keeps none.
    public var epoch: String?
    public var epochBeganAfter: Int64?

    public init(events: [CloudEvent], lastSequence: Int64, epoch: String? = nil, epochBeganAfter: Int64? = nil) {
        self.events = events
        self.lastSequence = lastSequence
        self.epoch = epoch
        self.epochBeganAfter = epochBeganAfter
    }
}

/// Why a catch-up call failed.
public enum EventFeedError: Error, CustomStringConvertible {
    /// No reply in time: the gateway is down or unreachable.
    case gatewayUnreachable(String)
    /// The gateway or the service answered with an error (no such service, no worker in time...).
    case refused(TallyError)
    case malformed(String)

    /// Whether it may pass by itself (no worker yet, a gateway restarting), as opposed to a
    /// problem someone must fix (a revoked token, a missing role).
    public var isTransient: Bool {
        switch self {
        case .gatewayUnreachable: true
        case .refused(let error): [.unavailable, .deadlineExceeded, .resourceExhausted].contains(error.code)
        case .malformed: false
        }
    }

    public var description: String {
        switch self {
        case .gatewayUnreachable(let detail): "gateway unreachable: \(detail)"
        case .refused(let error): "\(error.code.rawValue): \(error.message)"
        case .malformed(let detail): "malformed events reply: \(detail)"
        }
    }
}

/// Calls `<service>.events` through the gateway with a Lazy Pirate REQ socket, synchronously,
/// on the calling thread (the notifier's inlet thread), bounded by `timeout`. With a service token,
/// sends the access token it trades for (`ServiceAccessToken`).
public struct GatewayEventFeed: EventFeed {
    let requester: LazyPirateRequester
    let stop: WakeupSignal?
    let credentials: ServiceAccessToken?

    public init(
        context: ZMQContext, endpoint: String, timeout: Duration, stop: WakeupSignal?, serviceToken: String? = nil,
        curve: CurveClientKeys? = nil
    ) {
        self.init(context: context, endpoints: [endpoint], timeout: timeout, stop: stop, serviceToken: serviceToken, curve: curve)
    }

    /// - Parameter endpoints: several gateways; each call tries one, once (a catch-up call is cheap
    ///   to repeat later, and the inlet thread must not wait long), and the call after a silent
    ///   one goes to the next gateway.
    public init(
        context: ZMQContext, endpoints: [String], timeout: Duration, stop: WakeupSignal?, serviceToken: String? = nil,
        curve: CurveClientKeys? = nil
    ) {
        requester = LazyPirateRequester(context: context, endpoints: endpoints, timeout: timeout, tries: 1, curve: curve)
        self.stop = stop
        credentials = serviceToken.map(ServiceAccessToken.init)
    }

    public func events(service: String, after: Int64, limit: Int) throws -> EventFeedPage {
        // Ask the gateway (which answers 8/MMI itself, at once) whether the service has a live
        // worker: a request to a service without one would wait in the gateway's queue for the
        // whole timeout, and the inlet thread with it. (While it waits, the SUB socket attaches no
        // newly connected publisher, and what they send before it does is dropped by their PUB.)
        guard try isLive(service) else {
            throw EventFeedError.refused(TallyError(.unavailable, "no live \(service) worker (mmi.service)"))
        }
        let args: JSONValue = ["after": .integer(after), "limit": .integer(Int64(limit))]
        let result: JSONValue
        let token = try accessToken()
        do {
            result = try call("\(service).events", args, token: token)
        } catch EventFeedError.refused(let error) where error.code == .unauthenticated {
            // Asked without a token because no identity worker was live to trade the service token
            // at, as at a start before the workers have registered: that passes by itself.
            if credentials != nil, token == nil {
                throw EventFeedError.refused(TallyError(
                    .unavailable, "no live identity worker to trade the notifier's service token at, and \(service).events needs a token"))
            }
            // The access token expired or was refused: trade for a new one next time.
            credentials?.forget()
            throw EventFeedError.refused(error)
        }
        do {
            return try TallyJSON.decode(EventFeedPage.self, from: result)
        } catch {
            throw EventFeedError.malformed("\(error)")
        }
    }

    /// The access token to send, or nil without a service token, or while no identity worker is
    /// live to trade it at (a service that needs one then says `unauthenticated`).
    private func accessToken() throws -> String? {
        guard let credentials, try isLive("identity") else { return nil }
        return try credentials.accessToken { command, args in try call(command, args) }
    }

    private func isLive(_ service: String) throws -> Bool {
        try call("mmi.service", ["service": .string(service)])["code"]?.stringValue == "200"
    }

    private func call(_ command: String, _ args: JSONValue, token: String? = nil) throws -> JSONValue {
        let envelope = Envelope(
            command: command, args: args,
            deadlineMs: TallyClient.deadline(forTimeout: requester.timeout).roundedUpMilliseconds, token: token)
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
