import NIOCore
import NIOHTTP1
import NIOPosix

/// A one-shot `GET` of a Tally process's HTTP endpoint (`/ready`, `/metrics`): what
/// `tally health --ready` and the tests use. The client half of `MetricsEndpoint`, on the same
/// SwiftNIO stack and NIO's shared event loops, so it needs no HTTP client library (or libcurl in
/// a container image) and never blocks a thread of the Swift concurrency pool.
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
    public static func get(_ path: String, from address: HTTPAddress, timeout: Duration) async throws -> Response {
        try await withThrowingTaskGroup(of: Response?.self) { group in
            group.addTask { try await exchange(path, with: address) }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            // The first to finish decides; cancelling the other closes the connection or ends the sleep.
            defer { group.cancelAll() }
            guard let response = try await group.next() ?? nil else {
                throw Failure.unreachable("no answer from \(address) within \(timeout)")
            }
            return response
        }
    }

    private static func exchange(_ path: String, with address: HTTPAddress) async throws -> Response {
        let channel: NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(host: address.host, port: address.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        return try NIOAsyncChannel(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw Failure.unreachable("cannot connect to \(address): \(error)")
        }
        return try await withTaskCancellationHandler {
            do {
                return try await channel.executeThenClose { inbound, outbound in
                    var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path)
                    head.headers.add(name: "Host", value: address.description)
                    head.headers.add(name: "Connection", value: "close")
                    // A write can fail because the other end already answered and closed (a
                    // server that speaks first, and not HTTP): what it sent, read below, says
                    // more than the failed write, which is reported only when it sent nothing.
                    var requestFailure: (any Error)?
                    do {
                        try await outbound.write(.head(head))
                        try await outbound.write(.end(nil))
                    } catch {
                        requestFailure = error
                    }
                    var status: Int?
                    var body = ByteBuffer()
                    do {
                        for try await part in inbound {
                            switch part {
                            case .head(let response): status = Int(response.status.code)
                            case .body(var bytes): body.writeBuffer(&bytes)
                            case .end:
                                guard let status else {
                                    throw Failure.malformed("\(address) sent a body without a status line")
                                }
                                return Response(status: status, body: String(buffer: body))
                            }
                        }
                    } catch let error as HTTPParserError {
                        throw Failure.malformed("\(address) did not answer HTTP (\(error))")
                    }
                    if let requestFailure, status == nil, body.readableBytes == 0 { throw requestFailure }
                    throw Failure.malformed("\(address) closed the connection before a whole HTTP response")
                }
            } catch let error as Failure {
                throw error
            } catch {
                throw Failure.unreachable("lost the connection to \(address): \(error)")
            }
        } onCancel: {
            // The inbound stream does not end on cancellation by itself; closing the channel ends it.
            channel.channel.close(promise: nil)
        }
    }
}
