import Crypto
import Foundation
import FuzzSupport
import TallyAuth
import TallyProtocol

/// An access token as every worker reads it from a request envelope (`AuthenticationMiddleware`,
/// before any command that needs a caller, on the worker's thread): `AccessTokenVerifier.verify`,
/// trusting one key, at a fixed time, so that a reproducer replays the same way on any day.
///
/// The first byte says what the rest stands for:
/// - even: the token text as the envelope's `token` string carries it (invalid UTF-8 becomes
///   U+FFFD, as it would in JSON). This is everything a forger can send: the split into parts,
///   base64url, the header, the key id, the signature check.
/// - odd: two frames (`FuzzFrames`), a header and a payload, which the target encodes and signs
///   with the trusted key, as the identity service signs. A forger never gets past the signature,
///   but what lies behind it (the header's fields, the claims, the times) reads bytes too, and a
///   stolen key or a bug in what identity signs would reach it.
///
/// What the verifier accepts has the issuer `tally` and is valid now (within the leeway); the
/// claims read from it unverified (as `tally watch` reads its own token) are the same; and it is
/// refused again once any one of its characters is changed.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzToken(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    Fuzz.onSocketThread(start, count, checkToken)
}

private func checkToken(_ input: Data) {
    guard let mode = input.first else { return }
    let rest = input.dropFirst()
    let token: String
    if mode & 1 == 0 {
        token = String(decoding: rest, as: UTF8.self)
    } else {
        let frames = FuzzFrames.split(Data(rest))
        token = TrustedKey.sign(header: frames.first ?? Data(), payload: frames.dropFirst().first ?? Data())
    }
    guard let claims = try? TrustedKey.verifier.verify(token, now: TrustedKey.now) else { return }

    Fuzz.require(claims.issuer == AccessTokenClaims.tallyIssuer, "a token issued by \(claims.issuer) was accepted")
    let now = Int64(TrustedKey.now.timeIntervalSince1970)
    Fuzz.require(
        now + AccessTokenVerifier.leeway >= claims.notBefore && now - AccessTokenVerifier.leeway < claims.expiresAt,
        "a token valid from \(claims.notBefore) to \(claims.expiresAt) was accepted at \(now)")
    Fuzz.require(AccessTokenClaims.unverified(from: token) == claims, "the claims read unverified differ from the verified ones")

    // One character changed anywhere (the header, the payload, the signature's last character,
    // whose spare bits carry nothing) must make it a token nobody signed.
    let characters = Array(token.utf8)
    for position in [0, Int(input.count) % characters.count, characters.count - 1] {
        var changed = characters
        changed[position] = changed[position] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let forged = String(decoding: changed, as: UTF8.self)
        Fuzz.require(
            (try? TrustedKey.verifier.verify(forged, now: TrustedKey.now)) == nil,
            "a token with character \(position) changed is still accepted: \(forged)")
    }
}

/// The one key the verifier trusts, fixed so that a signed input signs the same on every run, and
/// loaded the way a worker loads it: from its public key file (`--public-keys`). Its id is the
/// one the examples of docs/protocol.md name, so that their tokens reach the signature check.
private enum TrustedKey {
    /// The private key's bytes (swift-crypto's key types are not `Sendable`; bytes are).
    static let secret = [UInt8](repeating: 7, count: 32)

    static func privateKey() -> Curve25519.Signing.PrivateKey {
        guard let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: secret) else { fatalError("32 bytes are an Ed25519 key") }
        return key
    }

    static let verifier: AccessTokenVerifier = {
        let file = (NSTemporaryDirectory() as NSString).appendingPathComponent("tally-fuzz-\(getpid()).public.jwk")
        let jwk = #"{"kty":"OKP","crv":"Ed25519","alg":"EdDSA","use":"sig","kid":"tally","x":"\#(Base64URL.encode(privateKey().publicKey.rawRepresentation))"}"#
        do {
            try Data(jwk.utf8).write(to: URL(fileURLWithPath: file))
            defer { try? FileManager.default.removeItem(atPath: file) }
            return try Fuzz.keptForAllInputs { AccessTokenVerifier(keys: [try TokenVerificationKey.load(file: file)]) }
        } catch {
            fatalError("cannot load the fuzz target's public key: \(error)")
        }
    }()

    /// 2026-11-21T12:03:20Z: within the lifetimes of the tokens in docs/protocol.md's examples.
    static let now = Date(timeIntervalSince1970: 1_795_262_600)

    /// `header` and `payload` as a JWS signed with the trusted key, as `AccessTokenSigner` lays
    /// out its own header and claims.
    static func sign(header: Data, payload: Data) -> String {
        let signingInput = "\(Base64URL.encode(header)).\(Base64URL.encode(payload))"
        guard let signature = try? privateKey().signature(for: Data(signingInput.utf8)) else {
            fatalError("Ed25519 cannot sign \(signingInput)")
        }
        return "\(signingInput).\(Base64URL.encode(signature))"
    }
}

/// Loads the key before the first input, outside its time limit.
@_cdecl("LLVMFuzzerInitialize")
public func initializeToken(_ argc: UnsafeMutableRawPointer?, _ argv: UnsafeMutableRawPointer?) -> CInt {
    _ = TrustedKey.verifier
    return 0
}
