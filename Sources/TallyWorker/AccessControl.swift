import TallyProtocol

/// Who may run what, enforced in one place for every command of every worker: the last
/// middleware before the handler, which `RequestProcessor` always puts there (so a worker cannot
/// be configured without it). It reads the command's `Access` as its table declared it:
///
/// - `.open`: runs for anyone, and the handler is handed no caller.
/// - `.user`: needs a caller, whom an earlier middleware (`AuthenticationMiddleware`) verified
///   from the envelope's token: `unauthenticated` without one.
/// - `.role(r)`: also needs `r` among the caller's roles: `permission_denied` otherwise.
///
/// A flag the table declared role-gated (`alerts.list`'s `all_owners`) is refused, when true, to a
/// caller without its role: `permission_denied` on that argument.
///
/// A command registered `.confirmed` has its caller confirmed first by the service's
/// `CallerAuthority` (identity's sessions and roles): an ended session is refused, and the roles
/// checked are the current ones.
///
/// A command that acts for a caller acts on the caller's own data, so `args.owner` (which clients
/// sent before sign-in existed) is refused with a message that says what changed.
public struct AccessControl: RequestMiddleware {
    let authority: (any CallerAuthority)?

    public init(authority: (any CallerAuthority)?) {
        self.authority = authority
    }

    public func respond(
        to request: Request, next: (Request) throws -> any Encodable & Sendable
    ) throws -> any Encodable & Sendable {
        let access = request.command.access
        guard access != .open else {
            // The hot path (calc, currency): nothing to check, nothing to copy.
            guard request.context.caller != nil else { return try next(request) }
            var request = request
            request.context.caller = nil
            return try next(request)
        }
        var request = request
        let name = request.command.name
        guard var caller = request.context.caller else {
            throw TallyError(
                .unauthenticated,
                "\(name) needs a signed-in caller: send an access token in the envelope's token (identity.login gives one; tally login stores one for tally call)",
                field: "token")
        }
        if request.command.confirmsCaller {
            guard let authority else {
                throw TallyError(.internal, "\(name) confirms its caller, and this service has no authority to ask")
            }
            caller = try authority.current(caller)
        }
        if case .role(let role) = access, !caller.has(role: role) {
            throw TallyError(
                .permissionDenied,
                "\(name) needs the role '\(role)'; \(caller.username) has \(Self.roles(of: caller)) (\(Self.howToGetARole))")
        }
        for (flag, role) in request.command.flagRoles where request.args.values[flag] == .bool(true) && !caller.has(role: role) {
            throw TallyError(
                .permissionDenied,
                "\(flag) needs the role '\(role)'; \(caller.username) has \(Self.roles(of: caller)) (leave \(flag) out; \(Self.howToGetARole))",
                field: request.args.field(flag))
        }
        if request.args.values["owner"] != nil {
            throw TallyError.invalidArgument(
                "owner is no longer an argument: \(name) acts on the signed-in caller's own data, the user of the envelope's token; remove owner, and send the token of the person whose data it is (identity.login gives one; tally login stores one for tally call)",
                field: request.args.field("owner"))
        }
        request.context.caller = caller
        return try next(request)
    }

    private static func roles(of caller: Caller) -> String {
        caller.roles.isEmpty ? "no roles" : "the roles \(caller.roles.sorted().joined(separator: ", "))"
    }

    private static let howToGetARole =
        "an admin grants roles with identity.grant_role; a new role shows in the next token, after identity.refresh"
}
