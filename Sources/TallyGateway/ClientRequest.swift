import Foundation
import TallyProtocol

/// Where a reply goes, and how it must be framed for the kind of client that asked.
struct ClientAddress: Sendable {
    enum Framing: Sendable, Equatable {
        /// REQ, or DEALER with an empty delimiter: `"", body`.
        case plain
        /// 7/MDP client of one of Tally's services: `"", "MDPC01", service, body`, the body JSON.
        case majordomo(service: Data)
        /// 7/MDP client of a service Tally does not define: the body is opaque, the worker's
        /// replies go back untouched, and the gateway marks the replies it makes itself.
        case opaque(service: Data)
        /// A DEALER that sent no delimiter: the reply is only `body`, so it can still read why.
        case bare
    }

    let identity: Data
    let framing: Framing

    func frames<Body: Collection<Data>>(_ body: Body) -> [Data] {
        var frames: [Data] = []
        frames.reserveCapacity(4 + body.count)
        frames.append(identity)
        switch framing {
        case .plain:
            frames.append(Data())
        case .majordomo(let service), .opaque(let service):
            frames.append(Data())
            frames.append(Majordomo.clientHeader)
            frames.append(service)
        case .bare:
            break
        }
        frames.append(contentsOf: body)
        return frames
    }

    /// An answer the gateway writes itself. A Tally client gets a JSON error reply, as a worker of
    /// Tally would write it; a client of another service gets three frames it can tell from any
    /// reply of that service's workers: `Majordomo.gatewayErrorMarker`, the code, the message.
    func gatewayAnswer(id: String?, error: TallyError) -> [Data] {
        switch framing {
        case .opaque:
            frames([Majordomo.gatewayErrorMarker, Data(error.code.rawValue.utf8), Data(error.message.utf8)])
        case .plain, .majordomo, .bare:
            frames(CollectionOfOne(Reply.failure(id: id, error: error)))
        }
    }
}

/// A message from the frontend, classified by its frames alone (no JSON is read here).
enum ClientRequest {
    case plain(identity: Data, body: Data)
    /// A 7/MDP request: the service frame (a valid name) and the body frames (the broker checks
    /// there is at least one, and answers in the framing the service calls for).
    case majordomo(identity: Data, service: Data, body: ArraySlice<Data>)
    case malformed(ClientAddress?, reason: String)

    /// `frames` as a ROUTER delivers them: the peer identity first.
    init(frames: [Data]) {
        guard frames.count >= 2, let identity = frames.first else {
            self = .malformed(nil, reason: "no identity frame")
            return
        }
        guard frames[1].isEmpty else {
            self = .malformed(
                ClientAddress(identity: identity, framing: .bare),
                reason: "a request starts with an empty delimiter frame (use a REQ socket, or send \"\" first from a DEALER)")
            return
        }
        if frames.count >= 3 && frames[2] == Majordomo.clientHeader {
            // Framing errors keep the 7/MDP framing, so a Majordomo client can read them.
            let service = frames.count >= 4 ? frames[3] : Data()
            guard Majordomo.isValidServiceName(service) else {
                self = .malformed(
                    ClientAddress(identity: identity, framing: .opaque(service: service)),
                    reason: "the 7/MDP service frame must be a name of 1 to 255 visible ASCII characters")
                return
            }
            self = .majordomo(identity: identity, service: service, body: frames[4...])
            return
        }
        guard frames.count == 3 else {
            self = .malformed(
                ClientAddress(identity: identity, framing: .plain),
                reason: "a plain request is one frame holding a JSON envelope; got \(frames.count - 2) frames")
            return
        }
        self = .plain(identity: identity, body: frames[2])
    }
}
