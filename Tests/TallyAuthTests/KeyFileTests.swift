import Foundation
import TallyAuth
import TallyTesting
import Testing

/// Key files as `tally keys signing` writes them and processes read them.
@Suite struct KeyFileTests {
    @Test func aKeyPairRoundTripsThroughItsFilesWithPrivateModes() throws {
        let directory = TemporaryDirectory()
        do {
            let keys = "\(directory.path)/keys"
            let made = try KeyFiles.create(name: "tally-1", in: keys)
            #expect(made.privateFile == "\(keys)/tally-1.private.jwk")
            #expect(try mode(made.privateFile) == 0o600)
            #expect(try mode(made.publicFile) == 0o644)
            #expect(try mode(keys) == 0o700)

            let signing = try TokenSigningKey.load(file: made.privateFile)
            #expect(signing.id == "tally-1")
            #expect(try TokenVerificationKey.load(file: made.publicFile) == made.key.verificationKey)
            #expect(try TokenVerificationKey.loadAll(from: [keys]) == [made.key.verificationKey])

            // A token signed with the loaded key verifies with the public file.
            let claims = AccessTokenClaims(subject: "1", username: "ann", roles: [], sessionID: "s", now: Date(), lifetime: .seconds(60))
            let token = try AccessTokenSigner(key: signing).sign(claims)
            #expect(try AccessTokenVerifier(keys: TokenVerificationKey.loadAll(from: [made.publicFile])).verify(token) == claims)

            // Never overwritten.
            #expect(throws: KeyFileError.self) { try KeyFiles.create(name: "tally-1", in: keys) }
        }
    }

    @Test func aPrivateKeyOthersCanReadIsRefused() throws {
        let directory = TemporaryDirectory()
        do {
            let made = try KeyFiles.create(name: "k", in: directory.path)
            chmod(made.privateFile, 0o640)
            let error = try #require(throws: KeyFileError.self) { try TokenSigningKey.load(file: made.privateFile) }
            #expect(error.description.contains("chmod 600"))
        }
    }

    @Test func aPrivateKeyIsNeverTakenAsAPublicOne() throws {
        let directory = TemporaryDirectory()
        do {
            let made = try KeyFiles.create(name: "k", in: directory.path)
            let error = try #require(throws: KeyFileError.self) { try TokenVerificationKey.load(file: made.privateFile) }
            #expect(error.description.contains("holds a private key"))
        }
    }

    @Test func twoDifferentKeysWithOneIDAreRefused() throws {
        let directory = TemporaryDirectory()
        do {
            let first = "\(directory.path)/a"
            let second = "\(directory.path)/b"
            try KeyFiles.create(name: "same", in: first)
            try KeyFiles.create(name: "same", in: second)
            #expect(throws: KeyFileError.self) { try TokenVerificationKey.loadAll(from: [first, second]) }
        }
    }

    @Test(arguments: ["", ".hidden", "a/b", "has space", String(repeating: "x", count: 65)])
    func badKeyNamesAreRefused(_ name: String) throws {
        let directory = TemporaryDirectory()
        do {
            #expect(throws: KeyFileError.self) { try KeyFiles.create(name: name, in: directory.path) }
        }
    }

    private func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
    }
}
