import Foundation
import TallyProtocol
import TallyWorker

/// Who may run what, checked in one place for every worker: in front of each command's handler,
/// it reads the command's `Access`, verifies the envelope's token when the command needs a caller,
/// and hands the handler that caller in `RequestContext.caller`.
///
/// - `.open`: runs for anyone; a token, valid or not, is ignored.
/// - `.user`: needs a valid token (`unauthenticated` without one, or with a bad, expired or forged one).
/// - `.role(r)`: also needs `r` among the token's roles (`permission_denied` otherwise).
public struct AuthenticationMiddleware: RequestMiddleware {
    public let verifier: AccessTokenVerifier

    public init(verifier: AccessTokenVerifier) {
        self.verifier = verifier
    }

    public func respond(
        to request: Request, next: (Request) throws -> any Encodable & Sendable
    ) throws -> any Encodable & Sendable {
        let access = request.command.access
        if access == .open { return try next(request) }
        guard let token = request.context.token else {
            throw TallyError(
                .unauthenticated,
                "\(request.command.name) needs a signed-in caller: send an access token in the envelope's token (identity.login gives one; tally login stores one for tally call)",
                field: "token")
        }
        let caller: Caller
        do {
            caller = try verifier.verify(token).caller
        } catch {
            throw error.error
        }
        if case .role(let role) = access, !caller.has(role: role) {
            let held = caller.roles.isEmpty ? "no roles" : "the roles \(caller.roles.sorted().joined(separator: ", "))"
            throw TallyError(
                .permissionDenied,
                "\(request.command.name) needs the role '\(role)'; \(caller.username) has \(held) (an admin grants roles with identity.grant_role; a new role shows in the next token, after identity.refresh)")
        }
        var request = request
        request.context.caller = caller
        return try next(request)
    }
}
