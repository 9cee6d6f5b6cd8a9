import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A small OpenTelemetry collector for tests: an HTTP server on a loopback port that takes OTLP/HTTP
/// trace exports in JSON (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`) and keeps the spans, so a test
/// can check what real processes exported. SwiftNIO's HTTP/1.1 server on its shared event loops,
/// as the processes' own `/metrics` endpoint is; each export is answered `200 {}` and its
/// connection closed.
public final class OTLPReceiver: Sendable {
    /// One span as exported: ids in lower-case hex, the `service.name` of the process that made it.
    public struct ReceivedSpan: Sendable, CustomStringConvertible {
        public let traceID: String
        public let spanID: String
        /// Nil for a trace's root.
        public let parentSpanID: String?
        public let name: String
        public let serviceName: String
        /// String, integer and boolean attributes, as text.
        public let attributes: [String: String]

        public var description: String {
            "\(serviceName) \(name) trace=\(traceID) span=\(spanID) parent=\(parentSpanID ?? "-") \(attributes)"
        }
    }

    /// The base address to give an exporter: `http://127.0.0.1:PORT`.
    public let endpoint: String
    private let received: SpanInbox
    private let listener: any Channel

    private init(endpoint: String, received: SpanInbox, listener: any Channel) {
        self.endpoint = endpoint
        self.received = received
        self.listener = listener
    }

    /// Listens on a loopback port the kernel picks; returns once it does.
    public static func start() async throws -> OTLPReceiver {
        let spans = SpanInbox()
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withPipeliningAssistance: false)
                    try channel.pipeline.syncOperations.addHandler(ExportHandler(inbox: spans))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let port = listener.localAddress?.port ?? 0
        return OTLPReceiver(endpoint: "http://127.0.0.1:\(port)", received: spans, listener: listener)
    }

    /// Every span received so far.
    public var spans: [ReceivedSpan] { received.spans.withLock { $0 } }

    /// Stops listening.
    public func stop() async {
        try? await listener.close()
    }

    /// The spans of an OTLP/JSON `ExportTraceServiceRequest`.
    static func spans(fromExport body: Data) -> [ReceivedSpan] {
        guard let export = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return [] }
        var spans: [ReceivedSpan] = []
        for resourceSpans in export["resourceSpans"] as? [[String: Any]] ?? [] {
            let resource = attributes((resourceSpans["resource"] as? [String: Any])?["attributes"])
            for scopeSpans in resourceSpans["scopeSpans"] as? [[String: Any]] ?? [] {
                for span in scopeSpans["spans"] as? [[String: Any]] ?? [] {
                    spans.append(ReceivedSpan(
                        traceID: hex(span["traceId"]) ?? "", spanID: hex(span["spanId"]) ?? "",
                        parentSpanID: hex(span["parentSpanId"]), name: span["name"] as? String ?? "",
                        serviceName: resource["service.name"] ?? "", attributes: attributes(span["attributes"])))
                }
            }
        }
        return spans
    }

    /// OTLP/JSON's ids are hex; protobuf's JSON mapping writes bytes as base64: either becomes hex.
    private static func hex(_ value: Any?) -> String? {
        guard let text = value as? String, !text.isEmpty else { return nil }
        if text.count == 32 || text.count == 16, text.allSatisfy(\.isHexDigit) { return text.lowercased() }
        guard let bytes = Data(base64Encoded: text) else { return text }
        return bytes.map { String(format: "%02x", $0) }.joined()
    }

    private static func attributes(_ value: Any?) -> [String: String] {
        var result: [String: String] = [:]
        for attribute in value as? [[String: Any]] ?? [] {
            guard let key = attribute["key"] as? String, let value = attribute["value"] as? [String: Any], let first = value.first
            else { continue }
            result[key] = "\(first.value)"
        }
        return result
    }
}

/// The spans every connection's handler has read, in the order their exports arrived.
private final class SpanInbox: Sendable {
    let spans = Mutex<[OTLPReceiver.ReceivedSpan]>([])
}

/// Reads one export on a connection (its head and whole body), keeps its spans, answers `200 {}`
/// and closes the connection.
private final class ExportHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let inbox: SpanInbox
    private var body = ByteBuffer()

    init(inbox: SpanInbox) {
        self.inbox = inbox
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: body.clear()
        case .body(var bytes): body.writeBuffer(&bytes)
        case .end:
            let spans = OTLPReceiver.spans(fromExport: Data(body.readableBytesView))
            inbox.spans.withLock { $0 += spans }
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "application/json")
            headers.add(name: "Content-Length", value: "2")
            headers.add(name: "Connection", value: "close")
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: "{}")))), promise: nil)
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
        }
    }
}
