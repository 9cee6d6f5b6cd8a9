import Crypto
import Foundation
import JWTKit
import TallyAuthCore

// Signs `distinct` access tokens with a new Tally key (as identity does), then verifies them:
// - Tally, first sight: each token once, with a fresh verifier (signature, header, claims);
// - Tally, again: one token over and over (what a worker does for a client's next requests:
//   `AccessTokenVerifier` remembers tokens whose signature checked out, and checks their times);
// - jwt-kit: each token once through `JWTKeyCollection.verify` with the same public key (its JWK
//   file), with the same claim checks (issuer, not before, expiry). jwt-kit remembers nothing, so
//   every request it verifies is a first sight.
// - the floor: swift-crypto's Ed25519 check of each token's signature alone, with the public key
//   made once (what any verifier must do at first sight, and all that is left to cut).
// Five rounds; the median per token.

let distinct = 2_000
let repeats = 200_000
let rounds = 5

struct Claims: JWTPayload {
    var iss: IssuerClaim
    var sub: SubjectClaim
    var username: String
    var roles: [String]
    var sid: String
    var iat: IssuedAtClaim
    var nbf: NotBeforeClaim
    var exp: ExpirationClaim

    func verify(using algorithm: some JWTAlgorithm) async throws {
        guard iss.value == "tally" else { throw JWTError.claimVerificationFailure(failedClaim: iss, reason: "not tally") }
        try nbf.verifyNotBefore()
        try exp.verifyNotExpired()
    }
}

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("token-verification-\(getpid())").path
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: directory) }
let created = try KeyFiles.create(name: "bench", in: directory)
let signer = AccessTokenSigner(key: created.key)
let tallyKey = try TokenVerificationKey.load(file: created.publicFile)
let jwks = JWTKeyCollection()
try await jwks.add(jwk: JWK(json: String(contentsOfFile: created.publicFile, encoding: .utf8)))

let tokens = try (0..<distinct).map { index in
    try signer.sign(AccessTokenClaims(
        subject: "u-\(index)", username: "user\(index)", roles: ["user"], sessionID: "s-\(index)", now: Date(), lifetime: .seconds(300)))
}

func microseconds(_ count: Int, _ body: () async throws -> Void) async rethrows -> Double {
    let start = ContinuousClock.now
    try await body()
    let elapsed = ContinuousClock.now - start
    return (Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12) / Double(count)
}

// The public key's 32 bytes, from its JWK file's `x`, for the floor.
let jwk = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: created.publicFile))) as! [String: Any]
var x = (jwk["x"] as! String).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
while x.count % 4 != 0 { x += "=" }
let publicKey = try Curve25519.Signing.PublicKey(rawRepresentation: Data(base64Encoded: x)!)
let signed = tokens.map { token -> (input: Data, signature: Data) in
    let parts = token.split(separator: ".")
    var signature = parts[2].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while signature.count % 4 != 0 { signature += "=" }
    return (Data("\(parts[0]).\(parts[1])".utf8), Data(base64Encoded: signature)!)
}

var floor: [Double] = []
var tallyFirst: [Double] = []
var tallyAgain: [Double] = []
var jwtKit: [Double] = []
for _ in 0..<rounds {
    floor.append(await microseconds(distinct) { for (input, signature) in signed { precondition(publicKey.isValidSignature(signature, for: input)) } })
    let verifier = AccessTokenVerifier(keys: [tallyKey])
    tallyFirst.append(try await microseconds(distinct) { for token in tokens { _ = try verifier.verify(token) } })
    tallyAgain.append(try await microseconds(repeats) { for _ in 0..<repeats { _ = try verifier.verify(tokens[0]) } })
    jwtKit.append(try await microseconds(distinct) { for token in tokens { _ = try await jwks.verify(token, as: Claims.self) } })
}

func median(_ values: [Double]) -> String { String(format: "%.2f", values.sorted()[values.count / 2]) }
print("µs per token, median of \(rounds) rounds (\(distinct) distinct tokens; \(repeats) repeats of one)")
print("Ed25519 check alone \(median(floor))")
print("tally, first sight   \(median(tallyFirst))")
print("tally, seen before   \(median(tallyAgain))")
print("jwt-kit, every time  \(median(jwtKit))")
