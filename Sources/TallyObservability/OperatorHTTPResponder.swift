import NIOCore
import NIOHTTP1
import Prometheus
import TallyLifecycle

/// Answers one HTTP request on a connection of `MetricsEndpoint` and closes it: `GET`/`HEAD`
/// of `/metrics` and `/ready`, 404 for any other path, 405 for any other method, 400 for what
/// is not HTTP/1.x. Every answer says `Connection: close` (no keep-alive: a scraper or probe
/// asks once), and the request's body, if any, is not read.
final class OperatorHTTPResponder: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let registry: PrometheusCollectorRegistry
    private let readiness: ReadinessNotifier
    /// Set once the answer is written: whatever arrives after it (a body, a pipelined request) is ignored.
    private var answered = false

    init(registry: PrometheusCollectorRegistry, readiness: ReadinessNotifier) {
        self.registry = registry
        self.readiness = readiness
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answered, case .head(let head) = unwrapInboundIn(data) else { return }
        answer(respond(to: head), context: context, omitBody: head.method == .HEAD)
    }

    /// What the decoder could not read as HTTP/1.x is answered 400.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !answered else { return context.close(promise: nil) }
        answer(.text(.badRequest, "expected a request line: GET /metrics HTTP/1.1\n"), context: context, omitBody: false)
    }

    /// A client that stops sending before a whole request head gets no answer.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .inputClosed? = event as? ChannelEvent, !answered { context.close(promise: nil) }
        context.fireUserInboundEventTriggered(event)
    }

    /// The answer to a request head.
    func respond(to head: HTTPRequestHead) -> OperatorHTTPResponse {
        guard head.method == .GET || head.method == .HEAD else {
            return .text(.methodNotAllowed, "only GET and HEAD\n", extraHeaders: [("Allow", "GET, HEAD")])
        }
        let path = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        switch path {
        case "/metrics":
            var body: [UInt8] = []
            registry.emit(into: &body)
            return OperatorHTTPResponse(status: .ok, body: body, contentType: "text/plain; version=0.0.4; charset=utf-8")
        case "/ready":
            return readiness.isServing ? .text(.ok, "ready\n") : .text(.serviceUnavailable, "not ready\n")
        default:
            return .text(.notFound, "this endpoint serves /metrics and /ready\n")
        }
    }

    private func answer(_ response: OperatorHTTPResponse, context: ChannelHandlerContext, omitBody: Bool) {
        answered = true
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: response.contentType)
        headers.add(name: "Content-Length", value: String(response.body.count))
        headers.add(name: "Connection", value: "close")
        for (name, value) in response.extraHeaders { headers.add(name: name, value: value) }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: response.status, headers: headers))), promise: nil)
        if !omitBody {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: response.body)))), promise: nil)
        }
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}

/// A response of the operators' endpoint: a status, a body and its content type.
struct OperatorHTTPResponse {
    let status: HTTPResponseStatus
    let body: [UInt8]
    let contentType: String
    var extraHeaders: [(String, String)] = []

    static func text(_ status: HTTPResponseStatus, _ body: String, extraHeaders: [(String, String)] = []) -> Self {
        Self(status: status, body: Array(body.utf8), contentType: "text/plain; charset=utf-8", extraHeaders: extraHeaders)
    }
}
