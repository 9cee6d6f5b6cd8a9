import CZeroMQ

public enum SocketType: Sendable {
    case req, rep, dealer, router, pub, sub, xpub, xsub, push, pull, pair
    /// Raw TCP: each message is `[peer id, bytes]`; an empty message opens or closes a connection.
    case stream

    var rawValue: Int32 {
        switch self {
        case .req: ZMQ_REQ
        case .rep: ZMQ_REP
        case .dealer: ZMQ_DEALER
        case .router: ZMQ_ROUTER
        case .pub: ZMQ_PUB
        case .sub: ZMQ_SUB
        case .xpub: ZMQ_XPUB
        case .xsub: ZMQ_XSUB
        case .push: ZMQ_PUSH
        case .pull: ZMQ_PULL
        case .pair: ZMQ_PAIR
        case .stream: ZMQ_STREAM
        }
    }
}
