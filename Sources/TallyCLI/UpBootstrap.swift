import Foundation
import Logging
import TallyAuth
import TallyCatalog
import TallyIdentity

/// What `tally up` prepares in its data directory before it starts anything, so that the stack
/// works from the first command: a token-signing key pair (unless one is configured), the
/// notifier's service token, and, when asked, a first admin.
struct UpBootstrap {
    let dataDirectory: String
    let data: DataLocation
    let passwordHashing: ScryptParameters
    let logger: Logger

    /// A key pair in `<data-dir>/keys`, unless `TALLY_SIGNING_KEY` names one or the directory has one.
    func ensureSigningKey() throws {
        let directory = KeyOptions.defaultDirectory(dataDirectory: dataDirectory)
        guard EnvironmentDefaults.signingKey.value == nil, KeyFiles.privateKeys(in: directory).isEmpty else { return }
        let made = try KeyFiles.create(name: "tally", in: directory)
        logger.info("made a token-signing key pair", metadata: ["private": "\(made.privateFile)", "public": "\(made.publicFile)"])
    }

    /// The notifier's service token in `<data-dir>/keys/notifier.token`, unless it is there already.
    func ensureNotifierToken(_ administration: IdentityAdministration) throws {
        let file = KeyOptions.notifierTokenFile(dataDirectory: dataDirectory)
        guard !FileManager.default.fileExists(atPath: file) else { return }
        let token = try administration.issueServiceToken(name: "notifier")
        try SecretFile.write(Data((token + "\n").utf8), to: file, replacing: false)
        logger.info("issued the notifier's service token", metadata: ["file": "\(file)"])
    }

    /// `username` as an admin: made with `TALLY_ADMIN_PASSWORD`, or a password made up and printed
    /// this once; an existing person gets the admin role and keeps their password.
    func ensureAdmin(_ username: String, _ administration: IdentityAdministration) throws {
        let given = EnvironmentDefaults.adminPassword.value
        let password = given ?? IdentityAdministration.generatePassword()
        if try administration.addUser(username, password: password, roles: ["admin"]) {
            let source = given == nil ? "\(password) (shown this once)" : "in TALLY_ADMIN_PASSWORD"
            // Written at once (print would wait in a buffer while tally up runs, when piped).
            FileHandle.standardOutput.write(Data("tally up: made the admin \(username.lowercased()) with the password \(source)\n".utf8))
        } else {
            logger.info("admin exists", metadata: ["username": "\(username.lowercased())"])
        }
    }

    func run(admin: String?) throws {
        try ensureSigningKey()
        let administration = IdentityAdministration(
            store: try ServiceCatalog.identityStore(data: data), passwordHashing: passwordHashing)
        try ensureNotifierToken(administration)
        if let admin { try ensureAdmin(admin, administration) }
    }
}
