import TallyProtocol
import TallyStorage

/// Service accounts: programs (the notifier) that call `.role("service")` commands such as
/// `<service>.events`. An admin issues a service token, a long-lived secret kept in a file on the
/// program's host; the program trades it for short-lived access tokens with
/// `identity.service_login`. So no host but the identity service's holds the signing key, and
/// revoking the service token cuts the program off once its last access token expires.
enum ServiceTokenCommands {
    /// `identity.issue_service_token`: a new token for the service account `name` (made, with
    /// `roles`, default `service`, if it does not exist). The token is in the reply only.
    static func issue(_ args: Arguments, _ admin: Caller, _ context: RequestContext, _ identity: IdentityResources) throws -> IssuedServiceToken {
        try args.allowOnly(["name", "roles"])
        let name = try Username.check(try args.string("name", example: "\"notifier\""), field: args.field("name"))
        let roles = try readRoles(args)
        return try identity.store.issueServiceToken(command: context.command, name: name, roles: roles, by: admin.userID)
    }

    /// `identity.revoke_service_token`: ends the service account's service sessions (or the one
    /// `session_id` names), so their tokens no longer trade for access tokens.
    static func revoke(_ args: Arguments, _ admin: Caller, _ context: RequestContext, _ identity: IdentityResources) throws -> StoredResult {
        try args.allowOnly(["name", "session_id"])
        let name = try Username.check(try args.string("name", example: "\"notifier\""), field: args.field("name"))
        let only = try args.optionalString("session_id")
        return try identity.store.change(context, args, owner: name) { change in
            guard let user = try UserRecord.find(change.session, username: name), user.kind == .service else {
                throw TallyError(.notFound, "there is no service account '\(name)'", field: args.field("name"))
            }
            let ended = try SessionRecord.end(change.session, user: user.id, only: only, kind: .service, reason: .revoked, at: change.now)
            for session in ended { change.record(IdentityEvent.sessionEnded(.init(session, of: user, reason: .revoked))) }
            return EndedSessions(endedSessions: ended.count)
        }
    }

    /// `identity.service_login`: a service token in, an access token out. Reads only, so it is
    /// safe to retry.
    static func login(_ args: Arguments, _ context: RequestContext, _ identity: IdentityResources) throws -> SessionTokens {
        try args.allowOnly(["service_token"])
        let text = try args.string("service_token", example: "\"tally_st_...\"")
        let field = args.field("service_token")
        guard OpaqueToken.isWellFormed(text, .service) else {
            throw TallyError(.unauthenticated, "this is not a service token (one starts with tally_st_)", field: field)
        }
        let found = try identity.store.read { sql -> (SessionRecord, UserRecord)? in
            guard let id = try sql.fetchValue("SELECT session_id FROM service_token WHERE token_hash = \(OpaqueToken.hash(text))", as: String.self),
                let session = try SessionRecord.find(sql, id: id),
                let user = try UserRecord.find(sql, userID: String(session.userID))
            else { return nil }
            return (session, user)
        }
        guard let (session, user) = found else {
            throw TallyError(
                .unauthenticated, "this service token is not known; issue one with tally identity service-token NAME", field: field)
        }
        guard session.isOpen else {
            throw TallyError(
                .unauthenticated, "this service token was revoked; issue a new one with tally identity service-token \(user.username)",
                field: field)
        }
        return try identity.tokens.serviceTokens(for: user, session: session.id, now: Timestamp.now())
    }

    private static func readRoles(_ args: Arguments) throws -> [String] {
        guard let values = try args.optionalArray("roles") else { return [RoleName.service] }
        var roles: [String] = []
        for (index, value) in values.enumerated() {
            let field = "\(args.field("roles"))[\(index)]"
            guard let text = value.stringValue else { throw TallyError.invalidArgument("each role is a string", field: field) }
            roles.append(try RoleName.check(text, field: field))
        }
        return roles
    }
}
