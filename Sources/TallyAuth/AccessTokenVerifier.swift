import Crypto
import Foundation
import Synchronization
import TallyProtocol

/// Checks access tokens with public keys only, in memory: any worker on any host can tell who is
/// calling without asking the identity service or its database.
///
/// In order: three base64url parts; a header of `alg` EdDSA, a `kid` this process trusts, and
/// nothing it does not understand; the Ed25519 signature over the first two parts; only then the
/// claims: issuer `tally`, not before `nbf`, not after `exp` (each with `leeway` for clocks that
/// disagree a little).
///
/// A client sends the same token with every request until it expires, and checking its signature
/// is most of a small request's work, so tokens whose signature and issuer were checked are
/// remembered (by their exact text, which the signature covers): the next request with the same
/// token only has its times checked.
public struct AccessTokenVerifier: Sendable {
    public let keys: [String: TokenVerificationKey]
    /// How far the clocks of the identity host and this one may disagree.
    public static let leeway: Int64 = 30
    private let verified = VerifiedTokens()

    public init(keys: [TokenVerificationKey]) {
        self.keys = Dictionary(keys.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    public func verify(_ token: String, now: Date = Date()) throws(TokenRejection) -> AccessTokenClaims {
        let claims: AccessTokenClaims
        if let known = verified.claims(of: token) { claims = known } else { claims = try verifySignature(token) }
        let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
        guard seconds + Self.leeway >= claims.notBefore else { throw .notYetValid(from: claims.notBefore) }
        guard seconds - Self.leeway < claims.expiresAt else { throw .expired(at: claims.expiresAt) }
        return claims
    }

    /// Everything but the times: the parts, the header, the key, the signature, the issuer.
    private func verifySignature(_ token: String) throws(TokenRejection) -> AccessTokenClaims {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformed("it has \(parts.count) part(s) separated by '.', not 3") }
        guard let headerBytes = Base64URL.decode(parts[0]), let header = Self.decodeHeader(headerBytes) else {
            throw .malformed("its header is not base64url JSON with alg, kid and typ only")
        }
        guard header.alg == JWSHeader.algorithm else { throw .unsupportedAlgorithm(header.alg) }
        guard !keys.isEmpty else { throw .noKeys }
        guard let kid = header.kid, let key = keys[kid] else { throw .unknownKey(header.kid ?? "none") }
        guard let signature = Base64URL.decode(parts[2]),
            key.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8))
        else { throw .badSignature }
        guard let payload = Base64URL.decode(parts[1]), let claims = try? TallyJSON.decode(AccessTokenClaims.self, from: payload) else {
            throw .malformed("its payload is not the claims of a Tally access token")
        }
        guard claims.issuer == AccessTokenClaims.tallyIssuer else { throw .wrongIssuer(claims.issuer) }
        verified.remember(token, claims)
        return claims
    }

    private static func decodeHeader(_ bytes: Data) -> JWSHeader? {
        guard let fields = try? JSONReader.parse(bytes), let members = fields.objectValue,
            Set(members.keys).isSubset(of: JWSHeader.fields)
        else { return nil }
        return try? TallyJSON.decode(JWSHeader.self, from: fields)
    }
}

/// Tokens whose signature and issuer checked out, by their text: at most `capacity`, forgotten
/// all at once when full (a busy service sees a few hundred people's tokens at a time; a token
/// that is forgotten is only checked again).
private final class VerifiedTokens: Sendable {
    static let capacity = 4096
    private let tokens = Mutex<[String: AccessTokenClaims]>([:])

    func claims(of token: String) -> AccessTokenClaims? { tokens.withLock { $0[token] } }

    func remember(_ token: String, _ claims: AccessTokenClaims) {
        tokens.withLock { tokens in
            if tokens.count >= Self.capacity { tokens.removeAll(keepingCapacity: true) }
            tokens[token] = claims
        }
    }
}

/// Why a token was refused; `error` says it to the client, with what to do next.
public enum TokenRejection: Error, Equatable, Sendable {
    case malformed(String)
    case unsupportedAlgorithm(String)
    /// The token names a key this process does not trust (or none).
    case unknownKey(String)
    /// This process trusts no key at all: it was started without public keys.
    case noKeys
    case badSignature
    case wrongIssuer(String)
    case expired(at: Int64)
    case notYetValid(from: Int64)

    public var error: TallyError {
        let message =
            switch self {
            case .malformed(let why): "the token is not a Tally access token: \(why); log in again (tally login) and send the access_token it gives"
            case .unsupportedAlgorithm(let alg): "the token is signed with '\(alg)'; Tally accepts only EdDSA tokens from its identity service; log in again"
            case .unknownKey(let kid):
                "the token was signed with key '\(kid)', which this service does not trust; log in again, or ask the operator to install that key's public file on this host"
            case .noKeys:
                "this service was started without token verification keys, so it cannot check any token; the operator must give it the identity service's public key (--public-keys or TALLY_PUBLIC_KEYS)"
            case .badSignature: "the token's signature does not verify: it was changed or forged; log in again"
            case .wrongIssuer(let issuer): "the token was issued by '\(issuer)', not by Tally's identity service; log in again"
            case .expired(let at): "the token expired at \(Self.time(at)); refresh it (identity.refresh) or log in again"
            case .notYetValid(let from):
                "the token is not valid before \(Self.time(from)); check that this host's clock and the identity host's agree"
            }
        return TallyError(.unauthenticated, message, field: "token")
    }

    static func time(_ seconds: Int64) -> String {
        Date(timeIntervalSince1970: TimeInterval(seconds)).formatted(Date.ISO8601FormatStyle(timeZone: .gmt))
    }
}
