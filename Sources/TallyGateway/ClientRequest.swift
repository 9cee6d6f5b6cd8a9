import Foundation
import TallyProtocol

/// Where a reply goes, and how it must be framed for the kind of client that asked.
struct ClientAddress: Sendable {
    enum Framing: Sendable, Equatable {
        /// REQ, or DEALER with an empty delimiter: `"", body`.
        case plain
        /// 7/MDP client: `"", "MDPC01", service, body`.
        case majordomo(service: Data)
        /// A DEALER that sent no delimiter: the reply is only `body`, so it can still read why.
        case bare
    }

    let identity: Data
    let framing: Framing

    func frames(_ body: [Data]) -> [Data] {
        switch framing {
        case .plain: [identity, Data()] + body
        case .majordomo(let service): [identity, Data(), Majordomo.clientHeader, service] + body
        case .bare: [identity] + body
        }
    }
}

/// A message from the frontend, classified by its frames alone (no JSON is read here).
enum ClientRequest {
    case plain(ClientAddress, body: Data)
    case majordomo(ClientAddress, service: String, body: [Data])
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
        let plainAddress = ClientAddress(identity: identity, framing: .plain)
        if frames.count >= 3 && frames[2] == Majordomo.clientHeader {
            guard frames.count >= 5 else {
                self = .malformed(plainAddress, reason: "a 7/MDP request has frames \"\", \"MDPC01\", service, body")
                return
            }
            guard let service = String(data: frames[3], encoding: .utf8), !service.isEmpty else {
                self = .malformed(plainAddress, reason: "the 7/MDP service frame must be a non-empty UTF-8 name")
                return
            }
            self = .majordomo(
                ClientAddress(identity: identity, framing: .majordomo(service: frames[3])), service: service,
                body: Array(frames[4...]))
            return
        }
        guard frames.count == 3 else {
            self = .malformed(
                plainAddress,
                reason: "a plain request is one frame holding a JSON envelope; got \(frames.count - 2) frames")
            return
        }
        self = .plain(plainAddress, body: frames[2])
    }
}
