import Crypto
import Foundation
import TallyAuth
import _CryptoExtras

/// scrypt's cost: N = 2^logN rounds over blocks of r × 128 bytes, p times. Memory is 128·N·r bytes
/// (128 MiB at the recommended 2^17, 8, 1).
public struct ScryptParameters: Sendable, Equatable, CustomStringConvertible {
    public var logN: Int
    public var r: Int
    public var p: Int

    public init(logN: Int, r: Int = 8, p: Int = 1) {
        self.logN = logN
        self.r = r
        self.p = p
    }

    /// OWASP's recommendation for scrypt (Password Storage Cheat Sheet): N = 2^17, r = 8, p = 1.
    public static let recommended = ScryptParameters(logN: 17)
    /// The cheapest cost accepted for new hashes: scrypt's original interactive-login setting.
    public static let weakestAccepted = 14
    /// Above this, one hash takes gigabytes: refused as a setting (and in a stored hash).
    public static let strongestAccepted = 22

    /// As written in a stored hash: `ln=17,r=8,p=1`.
    public var description: String { "ln=\(logN),r=\(r),p=\(p)" }

    init?(_ text: Substring) {
        var values: [String: Int] = [:]
        for pair in text.split(separator: ",") {
            let parts = pair.split(separator: "=")
            guard parts.count == 2, let value = Int(parts[1]) else { return nil }
            values[String(parts[0])] = value
        }
        guard let logN = values["ln"], let r = values["r"], let p = values["p"], values.count == 3,
            (1...Self.strongestAccepted).contains(logN), (1...32).contains(r), (1...16).contains(p)
        else { return nil }
        self.init(logN: logN, r: r, p: p)
    }

    /// Whether these parameters cost less than `other` in any way.
    func isWeaker(than other: ScryptParameters) -> Bool {
        logN < other.logN || r < other.r || p < other.p
    }
}

/// Passwords as the identity service keeps them: only the output of scrypt (swift-crypto's
/// `KDF.Scrypt`, BoringSSL's implementation) with a random 16-byte salt per password, stored
/// with its parameters in the PHC string format, `$scrypt$ln=17,r=8,p=1$<salt>$<hash>` (base64url).
/// Parameters travel with each hash, so raising them later is a setting: an older hash still
/// verifies, and is replaced by a stronger one at the next successful login.
public struct PasswordHasher: Sendable {
    public let parameters: ScryptParameters
    /// A hash of a random password with the current parameters, for checking logins of users who
    /// do not exist: they take as long as a wrong password for one who does.
    private let decoy: Stored

    static let saltBytes = 16
    static let hashBytes = 32

    public init(parameters: ScryptParameters) throws {
        self.parameters = parameters
        let random = Base64URL.encode(SymmetricKey(size: .bits128).withUnsafeBytes { Data($0) })
        decoy = try Self.stored(random, parameters: parameters)
    }

    /// A new stored form of `password`, with a fresh salt.
    public func hash(_ password: String) throws -> String {
        try Self.hash(password, parameters: parameters)
    }

    /// Whether `password` is the one `stored` was made from, compared in constant time. With no
    /// stored hash (no such user), checks against the decoy, so the answer (false) takes as long.
    public func verify(_ password: String, against stored: String?) -> Bool {
        guard let stored, let parsed = Self.parse(stored) else {
            _ = Self.verify(password, against: decoy)
            return false
        }
        return Self.verify(password, against: parsed)
    }

    /// Whether `stored` was made with weaker parameters than today's: to be re-hashed on login.
    public func needsRehash(_ stored: String) -> Bool {
        guard let parsed = Self.parse(stored) else { return true }
        return parsed.parameters.isWeaker(than: parameters)
    }

    private static func verify(_ password: String, against stored: Stored) -> Bool {
        guard let derived = try? derive(password, salt: stored.salt, parameters: stored.parameters) else { return false }
        // SymmetricKey's == compares in constant time.
        return derived == SymmetricKey(data: stored.hash)
    }

    /// A new stored form of `password` with `parameters`, for tools that set passwords and check none.
    static func hash(_ password: String, parameters: ScryptParameters) throws -> String {
        let stored = try stored(password, parameters: parameters)
        return "$scrypt$\(parameters)$\(Base64URL.encode(stored.salt))$\(Base64URL.encode(stored.hash))"
    }

    private static func stored(_ password: String, parameters: ScryptParameters) throws -> Stored {
        let salt = SymmetricKey(size: SymmetricKeySize(bitCount: saltBytes * 8)).withUnsafeBytes { Data($0) }
        let derived = try derive(password, salt: salt, parameters: parameters).withUnsafeBytes { Data($0) }
        return Stored(parameters: parameters, salt: salt, hash: derived)
    }

    /// Passwords are hashed as NFC UTF-8, so the same password typed on two keyboards matches.
    private static func derive(_ password: String, salt: Data, parameters: ScryptParameters) throws -> SymmetricKey {
        try KDF.Scrypt.deriveKey(
            from: Data(password.precomposedStringWithCanonicalMapping.utf8), salt: salt, outputByteCount: hashBytes,
            rounds: 1 << parameters.logN, blockSize: parameters.r, parallelism: parameters.p)
    }

    private struct Stored: Sendable {
        let parameters: ScryptParameters
        let salt: Data
        let hash: Data
    }

    private static func parse(_ stored: String) -> Stored? {
        let parts = stored.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "scrypt", let parameters = ScryptParameters(parts[2]),
            let salt = Base64URL.decode(parts[3]), let hash = Base64URL.decode(parts[4]), !salt.isEmpty, hash.count == hashBytes
        else { return nil }
        return Stored(parameters: parameters, salt: salt, hash: hash)
    }
}
