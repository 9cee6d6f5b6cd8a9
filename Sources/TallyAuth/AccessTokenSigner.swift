import Crypto
import Foundation
import TallyJSON

/// Signs access tokens: JWS compact serialization (RFC 7515) with EdDSA over Ed25519 (RFC 8037),
/// `header.payload.signature`, each part base64url. The header names the key (`kid`) so verifiers
/// holding several public keys know which one to use.
public struct AccessTokenSigner: Sendable {
    public let key: TokenSigningKey

    public init(key: TokenSigningKey) {
        self.key = key
    }

    public func sign(_ claims: AccessTokenClaims) throws -> String {
        let header = JWSHeader(alg: JWSHeader.algorithm, kid: key.id, typ: JWSHeader.type)
        let signingInput = "\(Base64URL.encode(try TallyJSON.encode(header))).\(Base64URL.encode(try TallyJSON.encode(claims)))"
        let signature = try key.signature(for: Data(signingInput.utf8))
        return "\(signingInput).\(Base64URL.encode(signature))"
    }
}

/// The protected header of a Tally access token. Nothing else may appear in it: a header field
/// Tally does not understand (`crit`, `jku`, `x5u`, ...) is a reason to refuse the token.
struct JWSHeader: Codable, Equatable {
    static let algorithm = "EdDSA"
    static let type = "JWT"
    static let fields: Set<String> = ["alg", "kid", "typ"]

    var alg: String
    var kid: String?
    var typ: String?
}

