import Foundation
import TallyAuth
import TallyTransportSecurity
import TallyProtocol
import ZeroMQ

/// CURVE for a test stack, the way an operator sets it up: key pairs made in the stack's own
/// temporary directory (`curve/keys`), and one allowlist directory (`curve/allowed`) that both
/// the gateway and the notifier read. It starts with `client` (role client), `worker` (role
/// worker, any service), `subscriber` (client and subscriber, as `tally watch` needs) and `notifier` (client, and worker for `alerts`) allowed;
/// `makeKey` adds more, allowed or not.
public struct StackCurve: Sendable {
    public let keys: String
    public let allowed: String

    init(directory: URL) throws {
        keys = directory.appendingPathComponent("curve/keys").path
        allowed = directory.appendingPathComponent("curve/allowed").path
        try SecretFile.createPrivateDirectory(allowed)
        try makeKey("gateway", allow: false)
        try makeKey("notifier", roles: [.client, .worker], services: ["alerts"])
        try makeKey("client", roles: [.client])
        try makeKey("worker", roles: [.worker])
        try makeKey("subscriber", roles: [.client, .subscriber])
    }

    /// Makes NAME.key and NAME.key_secret in `keys`; with `allow`, copies NAME.key into `allowed`.
    @discardableResult
    public func makeKey(_ name: String, roles: [CurveRole] = [], services: [String]? = nil, allow: Bool = true) throws -> CurveKeyPair {
        var metadata: [(String, String)] = []
        if !roles.isEmpty { metadata.append(("roles", roles.map(\.rawValue).joined(separator: ","))) }
        if let services { metadata.append(("services", services.joined(separator: ","))) }
        let made = try CurveCertificate.create(name: name, in: keys, metadata: metadata)
        if allow { try self.allow(name) }
        return made.keys
    }

    /// Copies NAME.key into the allowlist (the running servers notice at the next handshake).
    public func allow(_ name: String) throws {
        try FileManager.default.copyItem(atPath: publicFile(name), toPath: "\(allowed)/\(name).key")
    }

    public func secretFile(_ name: String) -> String { "\(keys)/\(name).key_secret" }
    public func publicFile(_ name: String) -> String { "\(keys)/\(name).key" }

    /// `tally gateway`'s flags: its key pair and the allowlist.
    public var gatewayArguments: [String] { ["--curve-key", secretFile("gateway"), "--allow", allowed] }

    /// `tally notifier`'s flags: its key pair, the allowlist, and the gateway's public key.
    public var notifierArguments: [String] {
        ["--curve-key", secretFile("notifier"), "--allow", allowed, "--gateway-key", publicFile("gateway")]
    }

    /// A connecting process's flags (`tally worker`, `call`, `watch`), with the key pair `name`.
    public func clientArguments(_ name: String) -> [String] {
        ["--curve-key", secretFile(name), "--gateway-key", publicFile("gateway"), "--notifier-key", publicFile("notifier")]
    }

    /// Keys for a socket of the test process itself: pair `name`, to the gateway or the notifier.
    public func clientKeys(_ name: String, server: String = "gateway") throws -> CurveClientKeys {
        try CurveClientKeys.load(secretFile: secretFile(name), serverFile: publicFile(server))
    }
}
