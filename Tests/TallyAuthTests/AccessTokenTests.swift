import Foundation
import TallyAuth
import TallyProtocol
import Testing

/// Signing and verifying access tokens: what is accepted, and each way a token is refused.
@Suite struct AccessTokenTests {
    let key = try! TokenSigningKey.generate(id: "k1")
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func claims(issuedAt: Int64 = 1_800_000_000, notBefore: Int64? = nil, lifetime: Int64 = 300) -> AccessTokenClaims {
        AccessTokenClaims(
            subject: "7", username: "ann", roles: ["manager", "admin"], sessionID: "s-1", issuedAt: issuedAt, notBefore: notBefore,
            expiresAt: issuedAt + lifetime)
    }

    var verifier: AccessTokenVerifier { AccessTokenVerifier(keys: [key.verificationKey]) }

    func rejection(_ token: String, verifier: AccessTokenVerifier? = nil, at time: Date? = nil) -> TokenRejection? {
        do {
            _ = try (verifier ?? self.verifier).verify(token, now: time ?? now)
            return nil
        } catch {
            return error
        }
    }

    @Test func aSignedTokenVerifiesAndNamesItsCaller() throws {
        let token = try AccessTokenSigner(key: key).sign(claims())
        let verified = try verifier.verify(token, now: now)
        #expect(verified == claims())
        #expect(verified.caller == Caller(userID: "7", username: "ann", roles: ["admin", "manager"], sessionID: "s-1"))
        // A JWS in compact form whose header names the key.
        let header = try JSONSerialization.jsonObject(with: try #require(Base64URL.decode(token.split(separator: ".")[0]))) as? [String: String]
        #expect(header == ["alg": "EdDSA", "kid": "k1", "typ": "JWT"])
    }

    @Test func expiredTokensAreRefusedAfterTheLeeway() throws {
        let token = try AccessTokenSigner(key: key).sign(claims(lifetime: 60))
        let expiry = now.addingTimeInterval(60)
        #expect(rejection(token, at: expiry.addingTimeInterval(Double(AccessTokenVerifier.leeway) - 1)) == nil)
        #expect(rejection(token, at: expiry.addingTimeInterval(Double(AccessTokenVerifier.leeway))) == .expired(at: 1_800_000_060))
        let message = TokenRejection.expired(at: 1_800_000_060).error
        #expect(message.code == .unauthenticated)
        #expect(message.message.contains("expired at 2027-01-15T08:01:00Z"))
        #expect(message.message.contains("identity.refresh"))
    }

    @Test func tokensNotYetValidAreRefused() throws {
        let token = try AccessTokenSigner(key: key).sign(claims(notBefore: 1_800_000_600, lifetime: 900))
        #expect(rejection(token) == .notYetValid(from: 1_800_000_600))
        #expect(rejection(token, at: now.addingTimeInterval(600 - Double(AccessTokenVerifier.leeway))) == nil)
    }

    @Test func aTokenOfAnotherKeyWithTheSameIDIsForged() throws {
        let impostor = try TokenSigningKey.generate(id: "k1")
        let forged = try AccessTokenSigner(key: impostor).sign(claims())
        #expect(rejection(forged) == .badSignature)
    }

    @Test func aTokenOfAKeyNotTrustedIsRefusedByItsID() throws {
        let other = try TokenSigningKey.generate(id: "k9")
        let token = try AccessTokenSigner(key: other).sign(claims())
        #expect(rejection(token) == .unknownKey("k9"))
        // Trusted once its public key is installed beside the first: rotation.
        #expect(rejection(token, verifier: AccessTokenVerifier(keys: [key.verificationKey, other.verificationKey])) == nil)
        // A process with no keys at all says so.
        #expect(rejection(token, verifier: AccessTokenVerifier(keys: [])) == .noKeys)
    }

    @Test func aRememberedTokenStillHasItsTimesCheckedAndAnyChangeToItsSignatureChecked() throws {
        // One verifier throughout, so the token is remembered after its first check.
        let verifier = self.verifier
        let token = try AccessTokenSigner(key: key).sign(claims(notBefore: 1_800_000_600, lifetime: 900))
        #expect(rejection(token, verifier: verifier) == .notYetValid(from: 1_800_000_600))
        #expect(rejection(token, verifier: verifier, at: now.addingTimeInterval(600)) == nil)
        #expect(rejection(token, verifier: verifier, at: now.addingTimeInterval(900 + Double(AccessTokenVerifier.leeway))) == .expired(at: 1_800_000_900))
        let parts = token.split(separator: ".").map(String.init)
        var signature = try #require(Base64URL.decode(parts[2]))
        signature[0] ^= 0x01
        let changed = [parts[0], parts[1], Base64URL.encode(signature)].joined(separator: ".")
        #expect(rejection(changed, verifier: verifier, at: now.addingTimeInterval(600)) == .badSignature)
    }

    @Test func aTamperedPayloadIsRefused() throws {
        let token = try AccessTokenSigner(key: key).sign(claims())
        let parts = token.split(separator: ".").map(String.init)
        var payload = try JSONSerialization.jsonObject(with: try #require(Base64URL.decode(parts[1]))) as? [String: Any] ?? [:]
        payload["roles"] = ["admin", "manager", "service"]
        let changed = Base64URL.encode(try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys]))
        #expect(rejection([parts[0], changed, parts[2]].joined(separator: ".")) == .badSignature)
    }

    @Test func aTamperedSignatureIsRefused() throws {
        let token = try AccessTokenSigner(key: key).sign(claims())
        let parts = token.split(separator: ".").map(String.init)
        var signature = try #require(Base64URL.decode(parts[2]))
        signature[10] ^= 0x01
        #expect(rejection([parts[0], parts[1], Base64URL.encode(signature)].joined(separator: ".")) == .badSignature)
        // A last character with other unused bits spells the same bytes: refused as not canonical.
        let last = parts[2].last == "A" ? "B" : "A"
        #expect(rejection([parts[0], parts[1], String(parts[2].dropLast()) + last].joined(separator: ".")) == .badSignature)
    }

    @Test func otherAlgorithmsAndUnknownHeadersAreRefused() throws {
        let token = try AccessTokenSigner(key: key).sign(claims())
        let parts = token.split(separator: ".").map(String.init)
        let none = Base64URL.encode(Data(#"{"alg":"none","kid":"k1"}"#.utf8))
        #expect(rejection([none, parts[1], ""].joined(separator: ".")) == .unsupportedAlgorithm("none"))
        let critical = Base64URL.encode(Data(#"{"alg":"EdDSA","crit":["exp"],"kid":"k1"}"#.utf8))
        guard case .malformed = rejection([critical, parts[1], parts[2]].joined(separator: ".")) else {
            Issue.record("a header with crit must be refused")
            return
        }
    }

    @Test(arguments: ["", "abc", "a.b", "a.b.c.d", "!!.??.**", "eyJhbGciOiJFZERTQSJ9..x"])
    func malformedTokensAreRefusedWithoutTrapping(_ token: String) {
        #expect(rejection(token) != nil)
    }
}

@Suite struct Base64URLTests {
    @Test func bytesSurviveTheRoundTripWithTheURLAlphabetAndNoPadding() throws {
        for length in 0..<40 {
            let bytes = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 97 &+ 251) })
            let text = Base64URL.encode(bytes)
            #expect(!text.contains("+") && !text.contains("/") && !text.contains("="), "\(text)")
            #expect(Base64URL.decode(text) == bytes, "\(length) bytes as \(text)")
        }
        #expect(Base64URL.encode(Data([0xFB, 0xFF])) == "-_8")
    }

    @Test func anythingButTheOneSpellingIsRefused() {
        #expect(Base64URL.decode("-_8") == Data([0xFB, 0xFF]))
        for text in ["+/8", "-_8=", "-_9", "-_ 8", "-_8\n", "A", "AAAAA", "é"] {
            #expect(Base64URL.decode(text) == nil, "\(text)")
        }
        #expect(Base64URL.decode("") == Data())
    }
}
