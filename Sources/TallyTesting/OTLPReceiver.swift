import Foundation
import Synchronization
import ZeroMQ

/// A small OpenTelemetry collector for tests: an HTTP server on a loopback port that takes OTLP/HTTP
/// trace exports in JSON (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`) and keeps the spans, so a test
/// can check what real processes exported. One thread with a ZMQ_STREAM socket (raw TCP); each
/// export is answered `200 {}` and its connection closed.
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
    private let received = Mutex<[ReceivedSpan]>([])
    private let stopped = Atomic<Bool>(false)
    private let finished = Mutex<Bool>(false)
    private let context: ZMQContext

    public init() throws {
        let port = try freeLoopbackPort()
        endpoint = "http://127.0.0.1:\(port)"
        context = try ZMQContext()
        // The socket lives on the thread that uses it; the initializer waits until it is bound.
        let bound = DispatchSemaphore(value: 0)
        let failure = Mutex<(any Error)?>(nil)
        let thread = Thread { [self] in
            defer { finished.withLock { $0 = true } }
            let socket: ZMQSocket
            do {
                socket = try ZMQSocket(context: context, type: .stream)
                try socket.bind("tcp://127.0.0.1:\(port)")
            } catch {
                failure.withLock { $0 = error }
                bound.signal()
                return
            }
            bound.signal()
            serve(socket)
            socket.close()
        }
        thread.name = "otlp-receiver"
        thread.start()
        bound.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }

    /// Every span received so far.
    public var spans: [ReceivedSpan] { received.withLock { $0 } }

    /// Stops the server thread (within its poll interval).
    public func stop() async {
        stopped.store(true, ordering: .releasing)
        try? await waitUntil("the OTLP receiver stopped", timeout: .seconds(5)) { finished.withLock { $0 } }
    }

    private func serve(_ socket: ZMQSocket) {
        var poller = ZMQPoller()
        poller.add(socket)
        // Bytes received on each open connection, by the STREAM socket's peer id.
        var buffers: [Data: Data] = [:]
        while !stopped.load(ordering: .acquiring) {
            guard (try? poller.poll(timeoutMilliseconds: 50)) ?? 0 > 0 else { continue }
            while let frames = try? socket.receive(dontWait: true), frames.count == 2 {
                let (peer, bytes) = (frames[0], frames[1])
                guard !bytes.isEmpty else {
                    buffers[peer] = nil
                    continue
                }
                var buffer = buffers[peer, default: Data()]
                buffer.append(bytes)
                guard let body = Self.completeBody(buffer) else {
                    buffers[peer] = buffer
                    continue
                }
                buffers[peer] = nil
                let spans = Self.spans(fromExport: body)
                received.withLock { $0 += spans }
                let response = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"
                _ = try? socket.send([peer, Data(response.utf8)], dontWait: true)
                _ = try? socket.send([peer, Data()], dontWait: true)
            }
        }
    }

    /// The body of a request once all of it (by its Content-Length) has arrived.
    static func completeBody(_ buffer: Data) -> Data? {
        guard let end = buffer.range(of: Data("\r\n\r\n".utf8)) else { return nil }
        let head = String(decoding: buffer[..<end.lowerBound], as: UTF8.self).lowercased()
        let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        let body = buffer[end.upperBound...]
        return body.count >= length ? Data(body.prefix(length)) : nil
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
