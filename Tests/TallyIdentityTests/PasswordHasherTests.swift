import Foundation
import TallyIdentity
import Testing

/// Passwords as stored: scrypt with a salt of their own and the parameters beside the hash.
@Suite struct PasswordHasherTests {
    /// The cheapest accepted cost keeps the suite quick; the format and the checks are the same.
    let hasher = try! PasswordHasher(parameters: ScryptParameters(logN: ScryptParameters.weakestAccepted))

    @Test func theRightPasswordVerifiesAndAWrongOneDoesNot() throws {
        let stored = try hasher.hash("correct horse battery staple")
        #expect(hasher.verify("correct horse battery staple", against: stored))
        #expect(!hasher.verify("correct horse battery stapler", against: stored))
        #expect(!hasher.verify("", against: stored))
    }

    @Test func theStoredFormCarriesTheParametersAndASaltOfItsOwn() throws {
        let first = try hasher.hash("same password")
        let second = try hasher.hash("same password")
        #expect(first != second, "each hash has its own salt")
        let parts = first.split(separator: "$")
        #expect(parts.count == 4)
        #expect(parts[0] == "scrypt")
        #expect(parts[1] == "ln=14,r=8,p=1")
        #expect(!first.contains("same password"))
    }

    @Test func hashesOfWeakerParametersStillVerifyAndAskToBeRehashed() throws {
        let old = try hasher.hash("an older password")
        let stronger = try PasswordHasher(parameters: ScryptParameters(logN: 15))
        #expect(stronger.verify("an older password", against: old))
        #expect(stronger.needsRehash(old))
        #expect(!stronger.needsRehash(try stronger.hash("an older password")))
        #expect(!hasher.needsRehash(old))
    }

    @Test func theSamePasswordTypedDifferentlyInUnicodeMatches() throws {
        // "é" as one code point, and as "e" with a combining accent.
        let stored = try hasher.hash("caf\u{E9} au lait")
        #expect(hasher.verify("cafe\u{301} au lait", against: stored))
    }

    @Test(arguments: ["", "plain", "$scrypt$ln=14,r=8,p=1$$", "$scrypt$ln=99,r=8,p=1$AAAA$AAAA", "$bcrypt$x$y$z"])
    func damagedStoredHashesNeverVerify(_ stored: String) {
        #expect(!hasher.verify("anything at all", against: stored))
    }

    @Test func aMissingUserNeverVerifies() {
        #expect(!hasher.verify("correct horse battery staple", against: nil))
    }
}
