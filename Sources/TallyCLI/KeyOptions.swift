import ArgumentParser
import Foundation
import Logging
import TallyAuth
import TallyIdentity

/// Where a process finds the public keys it verifies access tokens with: every worker, the
/// notifier's alerts worker, the identity service.
struct KeyOptions: ParsableArguments {
    @Option(
        help: EnvironmentDefaults.publicKeys.help("""
            Public keys that verify access tokens: NAME.public.jwk files, or directories of them, separated by commas \
            (default: <data-dir>/keys). Several keys let a new signing key roll out before the old one retires.
            """))
    var publicKeys: String?

    /// The verifier for this process: the configured public keys (or those in the data
    /// directory's `keys`), plus `extra` (the identity service's own signing key). Named paths
    /// must exist; the default directory may be missing, and then commands that need a caller are
    /// refused, which the log says.
    func verifier(dataDirectory: String, extra: [TokenVerificationKey] = [], logger: Logger) throws -> AccessTokenVerifier {
        let paths: [String]
        if let publicKeys = publicKeys ?? EnvironmentDefaults.publicKeys.value {
            paths = publicKeys.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        } else {
            let directory = KeyOptions.defaultDirectory(dataDirectory: dataDirectory)
            paths = FileManager.default.fileExists(atPath: directory) ? [directory] : []
        }
        let loaded = try TokenVerificationKey.loadAll(from: paths)
        let keys = loaded + extra.filter { key in !loaded.contains { $0.id == key.id } }
        if keys.isEmpty {
            logger.warning(
                "no public keys to verify access tokens with; commands that need a signed-in caller will be refused",
                metadata: ["looked_in": "\(paths.isEmpty ? KeyOptions.defaultDirectory(dataDirectory: dataDirectory) : paths.joined(separator: ","))"])
        } else {
            logger.info("verifying access tokens", metadata: ["key_ids": "\(keys.map(\.id).joined(separator: ","))"])
        }
        return AccessTokenVerifier(keys: keys)
    }

    /// Where keys live when no flag says: `<data-dir>/keys`, where `tally up` makes them.
    static func defaultDirectory(dataDirectory: String) -> String {
        URL(fileURLWithPath: dataDirectory).appendingPathComponent("keys").path
    }

    /// Where `tally up` keeps the notifier's service token, and where the notifier looks by default.
    static func notifierTokenFile(dataDirectory: String) -> String {
        "\(defaultDirectory(dataDirectory: dataDirectory))/notifier.token"
    }
}

/// How costly new password hashes are: the identity service's setting, which operators' tools
/// that set passwords follow too.
struct PasswordHashingOptions: ParsableArguments {
    @Option(
        help: EnvironmentDefaults.passwordCost.help("""
            identity: scrypt cost of new password hashes, as log2 of N (r = 8, p = 1), from \(ScryptParameters.weakestAccepted) \
            to \(ScryptParameters.strongestAccepted); 17 uses 128 MiB and a few hundred ms per hash.
            """))
    var passwordCost: Int = EnvironmentDefaults.passwordCost.value

    func validate() throws {
        guard (ScryptParameters.weakestAccepted...ScryptParameters.strongestAccepted).contains(passwordCost) else {
            throw ValidationError(
                "--password-cost must be from \(ScryptParameters.weakestAccepted) to \(ScryptParameters.strongestAccepted)")
        }
    }

    var parameters: ScryptParameters { ScryptParameters(logN: passwordCost) }
}

/// The identity service's settings: its signing key, token lifetimes, password hashing.
struct IdentityOptions: ParsableArguments {
    @Option(
        help: EnvironmentDefaults.signingKey.help("""
            identity: the private key access tokens are signed with, NAME.private.jwk, mode 0600 \
            (default: the one in <data-dir>/keys; make one with tally keys signing NAME).
            """))
    var signingKey: String?

    @Option(help: EnvironmentDefaults.accessTokenSeconds.help("identity: seconds an access token is valid, 30 to 86400."))
    var accessTokenSeconds: Int = EnvironmentDefaults.accessTokenSeconds.value

    @Option(help: EnvironmentDefaults.refreshTokenDays.help("identity: days a refresh token may wait to be used, 1 to 365."))
    var refreshTokenDays: Int = EnvironmentDefaults.refreshTokenDays.value

    @OptionGroup var passwordHashing: PasswordHashingOptions

    func validate() throws {
        guard (30...86_400).contains(accessTokenSeconds) else { throw ValidationError("--access-token-seconds must be from 30 to 86400") }
        guard (1...365).contains(refreshTokenDays) else { throw ValidationError("--refresh-token-days must be from 1 to 365") }
    }

    var settings: IdentitySettings {
        IdentitySettings(
            accessTokenLifetime: .seconds(accessTokenSeconds), refreshTokenLifetime: .seconds(refreshTokenDays * 24 * 3600),
            passwordHashing: passwordHashing.parameters)
    }

    /// The signing key: `--signing-key`, or the one private key in `<data-dir>/keys`.
    func loadSigningKey(dataDirectory: String) throws -> TokenSigningKey {
        if let signingKey = signingKey ?? EnvironmentDefaults.signingKey.value { return try TokenSigningKey.load(file: signingKey) }
        let directory = KeyOptions.defaultDirectory(dataDirectory: dataDirectory)
        let found = KeyFiles.privateKeys(in: directory)
        guard found.count == 1 else {
            throw KeyFileError(
                found.isEmpty
                    ? "the identity service needs a private key to sign access tokens: found none in \(directory); make one with tally keys signing NAME --dir \(directory), or name one with --signing-key (TALLY_SIGNING_KEY)"
                    : "\(directory) holds \(found.count) private keys (\(found.joined(separator: ", "))); say which signs with --signing-key (TALLY_SIGNING_KEY)")
        }
        return try TokenSigningKey.load(file: found[0])
    }
}
