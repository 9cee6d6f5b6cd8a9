import ZeroMQ

/// Why a call got no reply. An error *reply* is not a `ClientError`: it is a `Reply` with `ok: false`.
public enum ClientError: Error, CustomStringConvertible, Sendable {
    /// Every try timed out: the gateway is down, unreachable, or overloaded, or (under CURVE) it
    /// refused this client's key, which is never answered. `endpoint` names every gateway tried.
    case noReply(endpoint: String, tries: Int, timeout: Duration)
    /// No connection could be made to any gateway listed (nothing listens at the address, or no
    /// socket file is at the path): said at once, without waiting for a reply. `endpoint` names
    /// every gateway tried.
    case noGateway(endpoint: String)
    /// A client was made with an empty list of gateways.
    case noEndpoints
    /// The reply was not a Tally reply.
    case malformedReply(String)
    case transport(ZMQError)

    public var description: String {
        switch self {
        case .noReply(let endpoint, let tries, let timeout):
            "no reply from \(endpoint) after \(tries) tr\(tries == 1 ? "y" : "ies") of \(timeout.roundedUpMilliseconds) ms each; is the gateway running (tally up, or tally gateway)? Under CURVE, a key the gateway refuses gets no reply either: its log says why."
        case .noGateway(let endpoint):
            "no gateway at \(endpoint): nothing accepts connections there; is the gateway running (tally up, or tally gateway), and is this its client endpoint?"
        case .noEndpoints: "no gateway endpoint to call: give at least one (such as tcp://127.0.0.1:5555)"
        case .malformedReply(let detail): "the gateway sent something that is not a Tally reply: \(detail)"
        case .transport(let error): "ZeroMQ error: \(error)"
        }
    }
}
