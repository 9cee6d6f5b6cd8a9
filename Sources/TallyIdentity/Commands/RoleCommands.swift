import TallyProtocol
import TallyStorage

/// `identity.grant_role` and `identity.revoke_role`: an admin gives or takes a role. The change
/// shows in the user's next access token (at their next refresh or login); at other services,
/// tokens issued before keep the roles they name until they expire, while identity's privileged
/// commands read the roles as they are now (`SessionAuthority`).
enum RoleCommands {
    static func grant(_ args: Arguments, _ admin: Caller, _ context: RequestContext, _ identity: IdentityResources) throws -> StoredResult {
        let (username, role) = try read(args)
        return try identity.store.change(context, args, owner: username) { change in
            let user = try find(username, change.session, field: args.field("username"))
            return try IdentityStore.grant([role], to: user, &change, by: admin.userID).result
        }
    }

    static func revoke(_ args: Arguments, _ admin: Caller, _ context: RequestContext, _ identity: IdentityResources) throws -> StoredResult {
        let (username, role) = try read(args)
        return try identity.store.change(context, args, owner: username) { change in
            let user = try find(username, change.session, field: args.field("username"))
            if role == RoleName.admin, user.roles.contains(role), try UserRecord.count(holding: role, change.session) == 1 {
                throw TallyError(
                    .failedPrecondition, "\(username) is the only admin; grant admin to someone else first, so someone can still manage roles")
            }
            guard try user.revoke(role, change.session) else { return user.result }
            guard let updated = try UserRecord.find(change.session, username: username) else { return user.result }
            change.record(IdentityEvent.roleRevoked(.init(role, of: updated, roles: updated.roles, by: admin.userID)))
            return updated.result
        }
    }

    private static func read(_ args: Arguments) throws -> (String, String) {
        try args.allowOnly(["username", "role"])
        return (try Username.read(args), try RoleName.read(args))
    }

    private static func find(_ username: String, _ session: any SQLSession, field: String) throws -> UserRecord {
        guard let user = try UserRecord.find(session, username: username) else {
            throw TallyError(.notFound, "there is no user '\(username)'", field: field)
        }
        return user
    }
}
