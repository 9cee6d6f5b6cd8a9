import Foundation
import Logging
import Prometheus
import ServiceLifecycle
import TallyLifecycle
import ZeroMQ

/// The process's HTTP endpoint for operators: `GET /metrics` (Prometheus' text format) and
/// `GET /ready` (200 while the process is ready and not stopping, as `ReadinessNotifier` knows it; else 503).
///
/// Why a `ZMQ_STREAM` socket and not an HTTP library: two GETs answered with `Connection: close`
/// need no HTTP framework, and every Tally process already has libzmq and a thread-per-socket
/// model. SwiftNIO's HTTP1 or FlyingFox would add a dependency (and minutes of build) to do the
/// same; this adds none. The socket lives on a thread of its own and never blocks the Swift
/// concurrency pool. Requests are read up to the end of their head (at most 8 KiB), answered,
/// and the connection is closed; bodies are not read, so the endpoint takes GET and HEAD only.
public struct MetricsEndpoint: Service {
    public let address: HTTPAddress
    private let registry: PrometheusCollectorRegistry
    private let readiness: ReadinessNotifier
    private let logger: Logger

    /// Largest request head read; past it the connection is answered 431 and closed.
    static let maximumHeadBytes = 8 * 1024

    public init(
        address: HTTPAddress, registry: PrometheusCollectorRegistry, readiness: ReadinessNotifier = .shared, logger: Logger
    ) {
        self.address = address
        self.registry = registry
        self.readiness = readiness
        self.logger = logger
    }

    public func run() async throws {
        let context = try ZMQContext()
        try await DedicatedThread.runUntilShutdown(name: "metrics-http") { [self] stop in
            try serve(context: context, until: stop)
        }
    }

    private func serve(context: ZMQContext, until stop: WakeupSignal) throws {
        let socket = try ZMQSocket(context: context, type: .stream)
        defer { socket.close() }
        try socket.bind(address.zmqEndpoint)
        logger.info("serving /metrics and /ready", metadata: ["address": "\(address)"])
        var poller = ZMQPoller()
        let socketIndex = poller.add(socket)
        poller.add(fileDescriptor: stop.fileDescriptor)
        // Bytes of each open connection's request head, by the STREAM socket's peer id.
        var heads: [Data: Data] = [:]
        while !stop.isFired {
            try poller.poll(timeoutMilliseconds: -1)
            guard poller.isReadable(socketIndex) else { continue }
            while let frames = try socket.receive(dontWait: true) {
                guard frames.count == 2 else { continue }
                let (peer, bytes) = (frames[0], frames[1])
                // An empty message opens or closes a connection: either way nothing is buffered.
                guard !bytes.isEmpty else {
                    heads[peer] = nil
                    continue
                }
                var head = heads[peer, default: Data()]
                head.append(bytes)
                let response: Data
                if let end = head.range(of: Data("\r\n\r\n".utf8)) {
                    response = respond(to: head[..<end.lowerBound])
                } else if head.count > Self.maximumHeadBytes {
                    response = Self.response(431, "Request Header Fields Too Large", "request head over 8 KiB\n")
                } else {
                    heads[peer] = head
                    continue
                }
                heads[peer] = nil
                _ = try? socket.send([peer, response], dontWait: true)
                _ = try? socket.send([peer, Data()], dontWait: true)  // closes the connection
            }
        }
    }

    /// The response to a request head (request line and headers, without the blank line).
    func respond(to head: Data) -> Data {
        let requestLine = String(decoding: head.prefix { $0 != UInt8(ascii: "\r") }, as: UTF8.self)
        let parts = requestLine.split(separator: " ")
        guard parts.count == 3, parts[2].hasPrefix("HTTP/1.") else {
            return Self.response(400, "Bad Request", "expected a request line: GET /metrics HTTP/1.1\n")
        }
        let isHead = parts[0] == "HEAD"
        guard parts[0] == "GET" || isHead else {
            return Self.response(405, "Method Not Allowed", "only GET and HEAD\n", extraHeaders: "Allow: GET, HEAD\r\n")
        }
        let path = parts[1].split(separator: "?", maxSplits: 1).first.map(String.init) ?? ""
        switch path {
        case "/metrics":
            var body: [UInt8] = []
            registry.emit(into: &body)
            return Self.response(
                200, "OK", Data(body), contentType: "text/plain; version=0.0.4; charset=utf-8", omitBody: isHead)
        case "/ready":
            return readiness.isServing
                ? Self.response(200, "OK", "ready\n", omitBody: isHead)
                : Self.response(503, "Service Unavailable", "not ready\n", omitBody: isHead)
        default:
            return Self.response(404, "Not Found", "this endpoint serves /metrics and /ready\n", omitBody: isHead)
        }
    }

    static func response(
        _ status: Int, _ reason: String, _ body: String, extraHeaders: String = "", omitBody: Bool = false
    ) -> Data {
        response(status, reason, Data(body.utf8), contentType: "text/plain; charset=utf-8", extraHeaders: extraHeaders, omitBody: omitBody)
    }

    static func response(
        _ status: Int, _ reason: String, _ body: Data, contentType: String, extraHeaders: String = "", omitBody: Bool = false
    ) -> Data {
        var response = Data(
            ("HTTP/1.1 \(status) \(reason)\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.count)\r\n"
                + "Connection: close\r\n\(extraHeaders)\r\n").utf8)
        if !omitBody { response.append(body) }
        return response
    }
}
