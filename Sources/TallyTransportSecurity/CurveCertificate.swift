import Foundation
import TallyAuth
import ZeroMQ

/// A CURVE certificate file in the format of czmq's `zcert` (the ZeroMQ guide's tools): ZPL text
/// (RFC 4) with a `metadata` section and a `curve` section holding `public-key` and, in the secret
/// file only, `secret-key`, both Z85. `tally keys generate NAME` writes NAME.key (public, to hand
/// out) and NAME.key_secret (mode 0600, stays with the process it names).
///
/// Tally reads two metadata entries from a public key in an allowlist: `roles` (any of client,
/// worker, subscriber, comma-separated; client when absent) and, for workers, `services` (the
/// services the key may register for, comma-separated; any when absent).
public struct CurveCertificate: Sendable, Equatable {
    public var publicKey: String
    public var secretKey: String?
    public var metadata: [String: String]

    public var name: String? { metadata["name"] }

    /// Reads the certificate in `path` (public or secret file) for its public key and metadata.
    public static func load(publicFile path: String) throws -> CurveCertificate {
        guard let data = FileManager.default.contents(atPath: path) else { throw KeyFileError("cannot read the CURVE key \(path)") }
        return try parse(String(decoding: data, as: UTF8.self), file: path)
    }

    /// Reads a secret certificate (`NAME.key_secret`), refusing one the group or others can read,
    /// and returns its key pair.
    public static func load(secretFile path: String) throws -> CurveKeyPair {
        let data = try SecretFile.read(path, what: "the CURVE secret key")
        let certificate = try parse(String(decoding: data, as: UTF8.self), file: path)
        guard let secretKey = certificate.secretKey else {
            throw KeyFileError("\(path) holds no secret-key; name the NAME.key_secret file, not NAME.key")
        }
        do {
            return try CurveKeyPair(secretKey: secretKey, publicKey: certificate.publicKey)
        } catch let error as CurveKeyError {
            throw KeyFileError("\(path): \(error)")
        }
    }

    /// Parses ZPL text: sections at the left margin, `name = "value"` entries indented beneath.
    public static func parse(_ text: String, file: String) throws -> CurveCertificate {
        var section = ""
        var metadata: [String: String] = [:]
        var curve: [String: String] = [:]
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = String(rawLine)
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            if line.first != " " && line.first != "\t" {
                section = trimmed
                continue
            }
            guard let equals = trimmed.firstIndex(of: "=") else { continue }
            let key = trimmed[..<equals].trimmingCharacters(in: .whitespaces)
            var value = trimmed[trimmed.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, let quote = value.first, quote == "\"" || quote == "'", value.last == quote {
                value = String(value.dropFirst().dropLast())
            }
            switch section {
            case "metadata": metadata[key] = value
            case "curve": curve[key] = value
            default: continue
            }
        }
        guard let publicKey = curve["public-key"], CurveKeyPair.isZ85Key(publicKey) else {
            throw KeyFileError("\(file) is not a CURVE certificate: no 40-character curve/public-key")
        }
        let secretKey = curve["secret-key"]
        if let secretKey, !CurveKeyPair.isZ85Key(secretKey) {
            throw KeyFileError("\(file): curve/secret-key is not 40 characters of Z85")
        }
        return CurveCertificate(publicKey: publicKey, secretKey: secretKey, metadata: metadata)
    }

    /// Writes a new key pair into `directory` as NAME.key and NAME.key_secret (mode 0600), refusing
    /// to overwrite either. `metadata` (roles, services) goes into both, `name` first.
    public static func create(
        name: String, in directory: String, metadata: [(String, String)] = []
    ) throws -> (keys: CurveKeyPair, publicFile: String, secretFile: String) {
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || "._-".contains($0) }), name.first != "." else {
            throw KeyFileError("a key name is letters, digits, '.', '_' or '-', and does not start with '.'")
        }
        let keys = try CurveKeyPair.generate()
        let base = URL(fileURLWithPath: directory).appendingPathComponent(name).path
        let publicFile = base + ".key", secretFile = base + ".key_secret"
        for file in [publicFile, secretFile] where FileManager.default.fileExists(atPath: file) {
            throw KeyFileError("\(file) exists already; move it away first, or choose another name")
        }
        let entries = [("name", name)] + metadata
        try SecretFile.write(Data(text(keys, entries, secret: true).utf8), to: secretFile, replacing: false)
        try SecretFile.write(Data(text(keys, entries, secret: false).utf8), to: publicFile, replacing: false)
        // The public half is meant to be handed out.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: publicFile)
        return (keys, publicFile, secretFile)
    }

    private static func text(_ keys: CurveKeyPair, _ metadata: [(String, String)], secret: Bool) -> String {
        var lines = [
            "#   ****  Generated by tally keys generate  ****",
            secret ? "#   ZeroMQ CURVE **Secret** Certificate" : "#   ZeroMQ CURVE Public Certificate",
            secret
                ? "#   DO NOT PROVIDE THIS FILE TO OTHER USERS nor change its permissions."
                : "#   Exchange securely, or use a secure mechanism to verify the contents\n#   of this file after exchange.",
            "",
            "metadata",
        ]
        lines += metadata.map { "    \($0.0) = \"\($0.1)\"" }
        lines += ["curve", "    public-key = \"\(keys.publicKey)\""]
        if secret { lines.append("    secret-key = \"\(keys.secretKey)\"") }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension CurveClientKeys {
    /// A client's keys from its secret certificate and the server's public one.
    public static func load(secretFile: String, serverFile: String) throws -> CurveClientKeys {
        CurveClientKeys(
            keys: try CurveCertificate.load(secretFile: secretFile), serverKey: try CurveCertificate.load(publicFile: serverFile).publicKey)
    }
}
