import DequeModule
import Foundation

/// What became of a message handed to a socket without waiting.
enum SendOutcome {
    case sent
    /// The peer's queue is full: it is there, but not reading as fast as it is answered.
    case full
    /// The peer is gone.
    case gone
}

/// Replies held, in order, for clients whose receive queue is full: a client that reads slower
/// than it is answered is backpressure, not departure. Its replies wait here until its queue has
/// room again (or it is gone), and every reply it is owed still reaches it, once.
///
/// Held replies are bounded per client by `limit`: a client that has that many waiting is not
/// reading, and the broker accepts no new request from it until it reads (see `Broker`).
struct HeldReplies {
    let limit: Int
    private var byClient: [Data: Deque<[Data]>] = [:]

    init(limit: Int) { self.limit = limit }

    var isEmpty: Bool { byClient.isEmpty }

    /// Whether replies wait for this client, so a new one must queue behind them.
    func holds(_ identity: Data) -> Bool { !byClient.isEmpty && byClient[identity] != nil }

    /// Whether the client has as many replies waiting as it may.
    func isFull(_ identity: Data) -> Bool { !byClient.isEmpty && (byClient[identity]?.count ?? 0) >= limit }

    mutating func hold(_ frames: [Data], for identity: Data) {
        byClient[identity, default: []].append(frames)
    }

    /// Sends every client's held replies, oldest first, until its queue is full again. Returns
    /// the clients found gone, with how many replies they were owed (now dropped).
    mutating func flush(_ send: ([Data]) -> SendOutcome) -> [(identity: Data, dropped: Int)] {
        var gone: [(identity: Data, dropped: Int)] = []
        for identity in Array(byClient.keys) {
            var queue = byClient.removeValue(forKey: identity)!
            flushing: while let frames = queue.first {
                switch send(frames) {
                case .sent: queue.removeFirst()
                case .full: break flushing
                case .gone:
                    gone.append((identity, queue.count))
                    queue.removeAll()
                }
            }
            if !queue.isEmpty { byClient[identity] = queue }
        }
        return gone
    }

    /// Hands every held reply to `send` once more, for the gateway's last moments.
    mutating func flushForShutdown(_ send: ([Data]) -> SendOutcome) {
        _ = flush(send)
        byClient.removeAll()
    }
}
