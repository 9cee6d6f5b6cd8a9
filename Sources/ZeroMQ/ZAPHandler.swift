import CZeroMQ
import Foundation

/// One CURVE handshake that libzmq asks a ZAP handler about (RFC 27).
public struct ZAPRequest: Sendable, Equatable {
    /// The ZAP domain of the socket being connected to: which socket, so which role is required.
    public let domain: String
    /// The peer's IP address, for the log.
    public let address: String
    /// The client's long-term public key, Z85.
    public let publicKey: String

    public init(domain: String, address: String, publicKey: String) {
        self.domain = domain
        self.address = address
        self.publicKey = publicKey
    }
}

/// What a ZAP handler answers about one handshake.
public enum ZAPDecision: Sendable, Equatable {
    /// Admit the client. `userID` becomes the "User-Id" property of every message from it, and each
    /// `metadata` entry a property of its own (`ZMQSocket.receive(properties:)` reads them).
    case allow(userID: String, metadata: [String: String])
    /// Refuse the handshake; the reason goes into the ZAP reply and whatever the authorizer logs.
    case refuse(reason: String)
}

/// Decides who may connect to which of a process's CURVE sockets. Called on the ZAP handler's
/// thread, one handshake at a time, after the handler has counted every connection accepted
/// before it (`ZAPHandler.connections`).
public protocol ZAPAuthorizer: Sendable {
    func authorize(_ request: ZAPRequest) -> ZAPDecision
}

/// The ZAP handler of one context (RFC 27): without one, libzmq admits every CURVE client that
/// knows the server's public key. It answers on `inproc://zeromq.zap.01` from a thread of its own.
///
/// The socket is bound in `init`, on the caller's thread, so that no server socket of the context
/// can take a handshake before the handler listens (libzmq admits a CURVE client when no handler
/// is bound): make the handler before the services that bind. From then on only `run()`'s
/// thread touches the socket: starting a thread is the full memory barrier libzmq asks for when a
/// socket moves between threads.
///
/// It also counts each CURVE socket's connections, from the monitor `serveCurve` starts: libzmq
/// reports a connection when it accepts it, before its handshake, so the handler, reading those
/// reports before it answers a request, counts the connection it is asked about and every one
/// before it, exactly.
public final class ZAPHandler: @unchecked Sendable {
    public static let endpoint = "inproc://zeromq.zap.01"

    /// Where a CURVE socket of ZAP domain `domain` reports its connections (one per domain, so
    /// one such socket per domain and context).
    public static func monitorEndpoint(domain: String) -> String { "inproc://tally.zap.connections.\(domain)" }

    private let socket: ZMQSocket
    private let authorizer: any ZAPAuthorizer
    private let monitors: [ConnectionMonitor]

    /// - Parameter connections: a gauge per ZAP domain, kept by the handler with the live
    ///   connections of the socket that serves it, for the authorizer (a connection cap) and for
    ///   metrics.
    public init(context: ZMQContext, authorizer: any ZAPAuthorizer, connections: [String: ConnectionGauge] = [:]) throws {
        socket = try ZMQSocket(context: context, type: .rep)
        try socket.bind(ZAPHandler.endpoint)
        self.authorizer = authorizer
        monitors = try connections.map { domain, gauge in
            try ConnectionMonitor(endpoint: ZAPHandler.monitorEndpoint(domain: domain), context: context, gauge: gauge)
        }
    }

    /// Answers ZAP requests until `stop` fires (or the context ends). Blocks the calling thread,
    /// which must be a dedicated one (`SocketLoopService` runs it in a service group).
    public func serve(until stop: WakeupSignal) throws {
        defer {
            for monitor in monitors { monitor.close() }
            socket.close()
        }
        var poller = ZMQPoller()
        let index = poller.add(socket)
        poller.add(fileDescriptor: stop.fileDescriptor)
        for monitor in monitors { poller.add(monitor.socket) }
        while !stop.isFired {
            do {
                try poller.poll(timeoutMilliseconds: -1)
                for monitor in monitors { try monitor.update() }
                guard poller.isReadable(index), let frames = try socket.receive(dontWait: true) else { continue }
                // Read again after the request: every connection accepted before it is counted.
                for monitor in monitors { try monitor.update() }
                try socket.send(ZAPHandler.reply(to: frames, authorizer: authorizer))
            } catch let error as ZMQError where error.isContextTerminated {
                return
            }
        }
    }

    /// The reply frames to one request: version, request id, status code, status text, user id,
    /// metadata. A request that is not ZAP 1.0 with CURVE credentials gets 500 (RFC 27).
    static func reply(to frames: [Data], authorizer: any ZAPAuthorizer) -> [Data] {
        let requestID = frames.count > 1 ? frames[1] : Data()
        func answer(_ code: String, _ text: String, userID: String = "", metadata: [String: String] = [:]) -> [Data] {
            [Data("1.0".utf8), requestID, Data(code.utf8), Data(text.utf8), Data(userID.utf8), encode(metadata)]
        }
        guard frames.count >= 7, frames[0] == Data("1.0".utf8) else { return answer("500", "not a ZAP 1.0 request") }
        guard frames[5] == Data("CURVE".utf8), frames[6].count == 32 else {
            return answer("400", "only CURVE clients are admitted")
        }
        let request = ZAPRequest(
            domain: String(decoding: frames[2], as: UTF8.self), address: String(decoding: frames[3], as: UTF8.self),
            publicKey: z85(frames[6]))
        switch authorizer.authorize(request) {
        case .allow(let userID, let metadata): return answer("200", "OK", userID: userID, metadata: metadata)
        case .refuse(let reason): return answer("400", reason)
        }
    }

    /// Metadata in the ZMTP property form libzmq reads from a ZAP reply: name length (1 byte),
    /// name, value length (4 bytes, big-endian), value; names over 255 bytes are left out.
    static func encode(_ metadata: [String: String]) -> Data {
        var data = Data()
        for (name, value) in metadata.sorted(by: { $0.key < $1.key }) {
            let nameBytes = Data(name.utf8), valueBytes = Data(value.utf8)
            guard !nameBytes.isEmpty, nameBytes.count <= 255 else { continue }
            data.append(UInt8(nameBytes.count))
            data.append(nameBytes)
            withUnsafeBytes(of: UInt32(valueBytes.count).bigEndian) { data.append(contentsOf: $0) }
            data.append(valueBytes)
        }
        return data
    }

    /// A 32-byte key as Z85 text.
    static func z85(_ key: Data) -> String {
        var buffer = [CChar](repeating: 0, count: 41)
        _ = key.withUnsafeBytes { zmq_z85_encode(&buffer, $0.bindMemory(to: UInt8.self).baseAddress, 32) }
        return String(cString: buffer)
    }
}
