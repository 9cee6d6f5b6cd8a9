import Foundation
import TallyProtocol
import TallyWorker

/// Who is asking, found in one place for every worker: for a command that needs a caller, it
/// verifies the envelope's token and hands the caller it names to `AccessControl` (in
/// `RequestContext.caller`), which then decides whether that caller may run the command.
///
/// A token that is bad, expired or forged is `unauthenticated` here; a missing one is left to
/// `AccessControl`, which refuses it. Open commands never read the token, valid or not.
public struct AuthenticationMiddleware: RequestMiddleware {
    public let verifier: AccessTokenVerifier

    public init(verifier: AccessTokenVerifier) {
        self.verifier = verifier
    }

    public func respond(
        to request: Request, next: (Request) throws -> any Encodable & Sendable
    ) throws -> any Encodable & Sendable {
        guard request.command.access != .open, let token = request.context.token else { return try next(request) }
        var request = request
        do {
            request.context.caller = try verifier.verify(token).caller
        } catch {
            throw error.error
        }
        return try next(request)
    }
}
