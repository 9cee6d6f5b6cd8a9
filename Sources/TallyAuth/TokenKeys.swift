import Crypto
import Foundation
import TallyJSON

/// The key that signs access tokens: an Ed25519 private key and the id tokens name it by (`kid`).
/// Only the identity service holds one; every other process gets its public half.
public struct TokenSigningKey: Sendable {
    public let id: String
    /// The key's 32 bytes (swift-crypto's key types are not `Sendable`; bytes are).
    private let secret: Data
    /// The public half's 32 bytes.
    private let publicBytes: Data

    private init(id: String, privateKey: Curve25519.Signing.PrivateKey) {
        self.id = id
        secret = privateKey.rawRepresentation
        publicBytes = privateKey.publicKey.rawRepresentation
    }

    /// Signs `data` with the private key.
    func signature(for data: Data) throws -> Data {
        try Curve25519.Signing.PrivateKey(rawRepresentation: secret).signature(for: data)
    }

    /// A new random key.
    public static func generate(id: String) throws -> TokenSigningKey {
        try KeyName.check(id)
        return TokenSigningKey(id: id, privateKey: Curve25519.Signing.PrivateKey())
    }

    /// The public half, which verifies what this key signs.
    public var verificationKey: TokenVerificationKey {
        TokenVerificationKey(id: id, publicBytes: publicBytes)
    }

    /// Loads a private key file (`NAME.private.jwk`), refusing one that others can read.
    public static func load(file path: String) throws -> TokenSigningKey {
        let key = try JSONWebKey.decode(try SecretFile.read(path, what: "the token-signing private key"), file: path)
        guard let secret = key.d.flatMap(Base64URL.decode), let privateKey = try? Curve25519.Signing.PrivateKey(rawRepresentation: secret)
        else {
            throw KeyFileError("\(path) holds no Ed25519 private key (its \"d\" is missing or not 32 bytes of base64url)")
        }
        guard Base64URL.encode(privateKey.publicKey.rawRepresentation) == key.x else {
            throw KeyFileError("\(path) is damaged: its public \"x\" is not the public half of its private \"d\"")
        }
        return TokenSigningKey(id: key.kid, privateKey: privateKey)
    }

    /// The private key as a JWK (RFC 8037): what `tally keys signing` writes.
    func jwk() -> JSONWebKey {
        var key = verificationKey.jwk()
        key.d = Base64URL.encode(secret)
        return key
    }
}

/// A public key that verifies access tokens, with its id. Processes may trust several at once, so
/// a new signing key can be rolled out before the old one is retired.
public struct TokenVerificationKey: Sendable, Equatable {
    public let id: String
    /// The key's 32 bytes, checked to be a valid Ed25519 public key when loaded.
    let publicBytes: Data

    func isValidSignature(_ signature: Data, for data: Data) -> Bool {
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicBytes) else { return false }
        return key.isValidSignature(signature, for: data)
    }

    /// Loads a public key file (`NAME.public.jwk`). A private key file is refused: verifying
    /// processes never need one, and a copy on their host is a copy too many.
    public static func load(file path: String) throws -> TokenVerificationKey {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw KeyFileError("cannot read the public key file \(path)")
        }
        let key = try JSONWebKey.decode(data, file: path)
        guard key.d == nil else {
            throw KeyFileError(
                "\(path) holds a private key; give this process the public key file (NAME.public.jwk) instead, and keep the private one only where the identity service runs")
        }
        guard let raw = Base64URL.decode(key.x), (try? Curve25519.Signing.PublicKey(rawRepresentation: raw)) != nil else {
            throw KeyFileError("\(path) holds no Ed25519 public key (its \"x\" is not 32 bytes of base64url)")
        }
        return TokenVerificationKey(id: key.kid, publicBytes: raw)
    }

    /// Every public key at `paths`: files, or directories whose `*.public.jwk` files are read.
    /// Two different keys with one id are refused, since a token could not say which it means.
    public static func loadAll(from paths: [String]) throws -> [TokenVerificationKey] {
        var keys: [String: TokenVerificationKey] = [:]
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw KeyFileError("the public key path \(path) does not exist")
            }
            let files =
                isDirectory.boolValue
                ? try FileManager.default.contentsOfDirectory(atPath: path).filter { $0.hasSuffix(KeyFiles.publicSuffix) }.sorted()
                    .map { "\(path)/\($0)" }
                : [path]
            for file in files {
                let key = try load(file: file)
                if let known = keys[key.id], known != key {
                    throw KeyFileError("two different public keys have the id '\(key.id)' (one is \(file)); give each key its own name")
                }
                keys[key.id] = key
            }
        }
        return keys.values.sorted { $0.id < $1.id }
    }

    func jwk() -> JSONWebKey {
        JSONWebKey(kid: id, x: Base64URL.encode(publicBytes))
    }
}

/// Where `tally keys signing NAME` puts a key pair, and how the files are named.
public enum KeyFiles {
    public static let privateSuffix = ".private.jwk"
    public static let publicSuffix = ".public.jwk"

    /// Writes a new key pair into `directory`: `NAME.private.jwk` (mode 0600) and
    /// `NAME.public.jwk` beside it. Refuses to overwrite either.
    @discardableResult
    public static func create(name: String, in directory: String) throws -> (key: TokenSigningKey, privateFile: String, publicFile: String) {
        let key = try TokenSigningKey.generate(id: name)
        let privateFile = "\(directory)/\(name)\(privateSuffix)"
        let publicFile = "\(directory)/\(name)\(publicSuffix)"
        if FileManager.default.fileExists(atPath: publicFile) {
            throw KeyFileError("\(publicFile) exists already; choose another name, or move the old key away first")
        }
        try SecretFile.write(key.jwk().encoded(), to: privateFile, replacing: false)
        do {
            try SecretFile.write(key.verificationKey.jwk().encoded(), to: publicFile, replacing: false)
            // The public half is for everyone to read.
            chmod(publicFile, 0o644)
        } catch {
            try? FileManager.default.removeItem(atPath: privateFile)
            throw error
        }
        return (key, privateFile, publicFile)
    }

    /// The private key files in `directory`, sorted.
    public static func privateKeys(in directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(privateSuffix) }.sorted()
            .map { "\(directory)/\($0)" }
    }
}

/// Key ids, which are also file names: letters, digits, `.`, `_` and `-`, not starting with a dot.
enum KeyName {
    static func check(_ name: String) throws {
        let allowed = name.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: ".")
        }
        guard allowed, (1...64).contains(name.utf8.count), !name.hasPrefix(".") else {
            throw KeyFileError("a key name is 1 to 64 letters, digits, '.', '_' or '-', not starting with '.'; '\(name)' is not one")
        }
    }
}

/// An Ed25519 key as a JSON Web Key (RFC 7517, RFC 8037): the format of Tally's key files, which
/// any JOSE library reads.
struct JSONWebKey: Codable, Equatable {
    var kty = "OKP"
    var crv = "Ed25519"
    var alg: String? = "EdDSA"
    var use: String? = "sig"
    var kid: String
    var x: String
    var d: String?

    init(kid: String, x: String, d: String? = nil) {
        self.kid = kid
        self.x = x
        self.d = d
    }

    static func decode(_ data: Data, file: String) throws -> JSONWebKey {
        let key: JSONWebKey
        do {
            key = try TallyJSON.decode(JSONWebKey.self, from: data)
        } catch {
            throw KeyFileError("\(file) is not a JSON Web Key with kty, crv, kid and x (make keys with tally keys signing NAME)")
        }
        guard key.kty == "OKP", key.crv == "Ed25519" else {
            throw KeyFileError("\(file) is a \(key.kty)/\(key.crv) key; Tally signs tokens with Ed25519 (kty OKP, crv Ed25519)")
        }
        try KeyName.check(key.kid)
        return key
    }

    func encoded() -> Data {
        var data = (try? TallyJSON.encode(self)) ?? Data()
        data.append(UInt8(ascii: "\n"))
        return data
    }
}

