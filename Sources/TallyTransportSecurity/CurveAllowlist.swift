import Foundation
import TallyAuth
import Logging
import TallyProtocol
import ZeroMQ

/// The public keys a server process admits, read from a directory of certificate files (`*.key`),
/// as the process's ZAP authorizer. The directory is read again when it changes (checked at each
/// handshake, which are rare) and on `reload()` (SIGHUP), so an operator adds or removes a key
/// without a restart; connections already admitted stay until they end.
///
/// An admitted key's name becomes the connection's User-Id, and a worker's allowed services the
/// `Majordomo.workerServicesProperty` ("*" for any), which the gateway checks READY against.
public final class CurveAllowlist: ZAPAuthorizer, @unchecked Sendable {
    struct Entry: Sendable, Equatable {
        let name: String
        let roles: Set<CurveRole>
        /// Services a worker key may register for; nil for any.
        let services: Set<String>?
    }

    public let directory: String
    private let logger: Logger
    private let lock = NSLock()
    private var entries: [String: Entry] = [:]
    private var signature: [String] = []

    /// Reads `directory` now, so a missing or unreadable directory stops the process at start.
    public init(directory: String, logger: Logger) throws {
        self.directory = directory
        self.logger = logger
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw KeyFileError("the CURVE allowlist \(directory) is not a directory of public key files (NAME.key)")
        }
        lock.withLock { load(reason: "start") }
    }

    /// Reads the directory again (SIGHUP).
    public func reload() {
        lock.withLock { load(reason: "reload requested") }
    }

    public func authorize(_ request: ZAPRequest) -> ZAPDecision {
        let entry: Entry? = lock.withLock {
            if currentSignature() != signature { load(reason: "directory changed") }
            return entries[request.publicKey]
        }
        let role = CurveRole(rawValue: request.domain)
        let refusal: String?
        if role == nil {
            refusal = "the socket's ZAP domain '\(request.domain)' names no role"
        } else if let entry, let role, !entry.roles.contains(role) {
            refusal = "key \(entry.name) has roles \(entry.roles.map(\.rawValue).sorted().joined(separator: ",")), not \(role.rawValue)"
        } else if entry == nil {
            refusal = "key not in the allowlist \(directory)"
        } else {
            refusal = nil
        }
        if let refusal {
            logger.warning(
                "refused a CURVE connection",
                metadata: [
                    "key": "\(request.publicKey)", "name": "\(entry?.name ?? "-")", "role": "\(request.domain)",
                    "address": "\(request.address)", "reason": "\(refusal)",
                ])
            return .refuse(reason: refusal)
        }
        let admitted = entry!
        logger.debug("admitted a CURVE connection", metadata: ["name": "\(admitted.name)", "role": "\(request.domain)", "address": "\(request.address)"])
        let services = admitted.services.map { $0.sorted().joined(separator: ",") } ?? "*"
        return .allow(userID: admitted.name, metadata: role == .worker ? [Majordomo.workerServicesProperty: services] : [:])
    }

    // MARK: Reading the directory (lock held)

    private func load(reason: String) {
        var loaded: [String: Entry] = [:]
        for file in keyFiles() {
            do {
                let certificate = try CurveCertificate.load(publicFile: file)
                let name = certificate.name ?? URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
                var roles: Set<CurveRole> = []
                for word in list(certificate.metadata["roles"] ?? "client") {
                    guard let role = CurveRole(rawValue: word) else { throw KeyFileError("\(file): unknown role '\(word)'") }
                    roles.insert(role)
                }
                let services = certificate.metadata["services"].map { Set(list($0)) }
                loaded[certificate.publicKey] = Entry(name: name, roles: roles, services: services)
            } catch {
                logger.error("skipped a file of the CURVE allowlist", metadata: ["file": "\(file)", "error": "\(error)"])
            }
        }
        entries = loaded
        signature = currentSignature()
        logger.info(
            "CURVE allowlist loaded",
            metadata: ["directory": "\(directory)", "keys": "\(loaded.values.map(\.name).sorted().joined(separator: ","))", "why": "\(reason)"])
    }

    private func list(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    private func keyFiles() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".key") && !$0.hasPrefix(".") }.sorted()
            .map { URL(fileURLWithPath: directory).appendingPathComponent($0).path }
    }

    /// Names, sizes and modification times of the key files: what tells a change.
    private func currentSignature() -> [String] {
        keyFiles().map { file in
            let attributes = (try? FileManager.default.attributesOfItem(atPath: file)) ?? [:]
            let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            return "\(file) \(attributes[.size] ?? 0) \(modified)"
        }
    }
}
