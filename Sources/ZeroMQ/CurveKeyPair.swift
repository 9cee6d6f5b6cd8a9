import CZeroMQ
import Foundation

/// A CurveZMQ key pair (RFC 26) as Z85 text, 40 characters each: the form libzmq's socket options,
/// and the certificate files of the ZeroMQ guide's tools, use.
public struct CurveKeyPair: Sendable, Equatable {
    public let publicKey: String
    public let secretKey: String

    /// A new random key pair from libzmq (needs a libzmq built with CURVE: see `isAvailable`).
    public static func generate() throws -> CurveKeyPair {
        var publicBuffer = [CChar](repeating: 0, count: 41)
        var secretBuffer = [CChar](repeating: 0, count: 41)
        guard zmq_curve_keypair(&publicBuffer, &secretBuffer) == 0 else { throw ZMQError.last("zmq_curve_keypair") }
        return CurveKeyPair(
            publicKey: String(cString: publicBuffer), secretKey: String(cString: secretBuffer))
    }

    /// The pair whose secret key is `secretKey`; refuses a secret key that does not match `publicKey`
    /// when one is given, so a certificate file with a stale half is noticed.
    public init(secretKey: String, publicKey expected: String? = nil) throws {
        guard CurveKeyPair.isZ85Key(secretKey) else { throw CurveKeyError("the secret key is not 40 characters of Z85") }
        var publicBuffer = [CChar](repeating: 0, count: 41)
        guard zmq_curve_public(&publicBuffer, secretKey) == 0 else { throw CurveKeyError("the secret key is not valid Z85") }
        let derived = String(cString: publicBuffer)
        if let expected, expected != derived { throw CurveKeyError("the public key does not belong to the secret key") }
        self.init(publicKey: derived, secretKey: secretKey)
    }

    private init(publicKey: String, secretKey: String) {
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    /// Whether `text` looks like a Z85-encoded 32-byte key: 40 characters of the Z85 alphabet.
    public static func isZ85Key(_ text: String) -> Bool {
        text.utf8.count == 40 && text.utf8.allSatisfy { z85Alphabet.contains($0) }
    }

    /// Whether the linked libzmq was built with CURVE (libsodium or its own TweetNaCl).
    public static var isAvailable: Bool { zmq_has("curve") != 0 }

    private static let z85Alphabet = Set(
        "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#".utf8)
}

/// A key that cannot be used, with what is wrong with it.
public struct CurveKeyError: Error, CustomStringConvertible, Equatable {
    public let description: String

    public init(_ description: String) { self.description = description }
}

/// How a socket that connects authenticates to a CURVE server: its own key pair, and the public
/// key of the server it expects (a server holding another key fails the handshake).
public struct CurveClientKeys: Sendable, Equatable {
    public let keys: CurveKeyPair
    public let serverKey: String

    public init(keys: CurveKeyPair, serverKey: String) {
        self.keys = keys
        self.serverKey = serverKey
    }
}

/// How a socket that binds serves CURVE: its key pair, and the ZAP domain its clients are checked
/// in, which tells the process's `ZAPHandler` which socket (and so which role) a handshake is for.
public struct CurveServerKeys: Sendable, Equatable {
    public let keys: CurveKeyPair
    public let domain: String

    public init(keys: CurveKeyPair, domain: String) {
        self.keys = keys
        self.domain = domain
    }
}

extension ZMQSocket {
    /// Makes this (connecting) socket a CURVE client. Set before `connect`.
    public func useCurve(_ client: CurveClientKeys) throws {
        try setString(ZMQ_CURVE_SERVERKEY, client.serverKey)
        try setString(ZMQ_CURVE_PUBLICKEY, client.keys.publicKey)
        try setString(ZMQ_CURVE_SECRETKEY, client.keys.secretKey)
    }

    /// Makes this (binding) socket a CURVE server whose clients a ZAP handler must admit. Set
    /// before `bind`, and bind only once the context's `ZAPHandler` exists: libzmq lets a
    /// handshake pass when no handler listens. (`ZMQ_ZAP_ENFORCE_DOMAIN`, which would make it fail
    /// instead, is a draft option that release builds of libzmq 4.3 do not accept.)
    ///
    /// It also starts the socket's monitor for the ZAP handler, which counts the socket's
    /// connections (`ZAPHandler.connections`); a socket has one monitor, so do not give it another.
    public func serveCurve(_ server: CurveServerKeys) throws {
        try setInt(ZMQ_CURVE_SERVER, 1)
        try setString(ZMQ_CURVE_SECRETKEY, server.keys.secretKey)
        try setString(ZMQ_ZAP_DOMAIN, server.domain)
        try startMonitor(ZAPHandler.monitorEndpoint(domain: server.domain), events: ConnectionMonitor.events)
    }

    /// Sets a string option (Z85 keys, ZAP domain) as its bytes, without a terminating NUL.
    public func setString(_ option: Int32, _ value: String) throws {
        try setBytes(option, Data(value.utf8))
    }
}
