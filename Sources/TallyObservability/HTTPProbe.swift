import Foundation
import ZeroMQ

/// A one-shot `GET` of a Tally process's HTTP endpoint (`/ready`, `/metrics`), over a
/// `ZMQ_STREAM` socket: what `tally health --ready` and the tests use, so neither needs an HTTP
/// client library (or libcurl in a container image). Blocking: call it from a thread of its own
/// (`DedicatedThread`), never from the Swift concurrency pool.
public enum HTTPProbe {
    public struct Response: Sendable {
        public let status: Int
        public let body: String
    }

    public enum Failure: Error, CustomStringConvertible {
        case unreachable(String)
        case malformed(String)

        public var description: String {
            switch self {
            case .unreachable(let why): why
            case .malformed(let why): why
            }
        }
    }

    /// GETs `path` from `address`, waiting at most `timeout` for the whole response.
    public static func get(_ path: String, from address: HTTPAddress, timeout: Duration) throws -> Response {
        let context = try ZMQContext()
        let socket = try ZMQSocket(context: context, type: .stream)
        defer { socket.close() }
        try socket.connect(address.zmqEndpoint)
        let deadline = ContinuousClock.now + timeout
        var poller = ZMQPoller()
        let index = poller.add(socket)
        var peer: Data?
        var received = Data()
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else {
                throw Failure.unreachable("no answer from \(address) within \(timeout.roundedUpMilliseconds) ms")
            }
            try poller.poll(timeout: left)
            guard poller.isReadable(index) else { continue }
            guard let frames = try socket.receive(dontWait: true), frames.count == 2 else { continue }
            if peer == nil {
                // The first message is the empty one that says the connection is open.
                peer = frames[0]
                let request = "GET \(path) HTTP/1.1\r\nHost: \(address)\r\nConnection: close\r\n\r\n"
                try socket.send([frames[0], Data(request.utf8)])
                continue
            }
            if frames[1].isEmpty { break }  // the server closed the connection: the response is whole
            received.append(frames[1])
        }
        return try parse(received, from: address)
    }

    private static func parse(_ received: Data, from address: HTTPAddress) throws -> Response {
        guard let end = received.range(of: Data("\r\n\r\n".utf8)) else {
            throw Failure.malformed("\(address) did not answer HTTP")
        }
        let statusLine = String(decoding: received[..<end.lowerBound].prefix { $0 != UInt8(ascii: "\r") }, as: UTF8.self)
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let status = Int(parts[1]) else {
            throw Failure.malformed("\(address) answered '\(statusLine)', not an HTTP status line")
        }
        return Response(status: status, body: String(decoding: received[end.upperBound...], as: UTF8.self))
    }
}
