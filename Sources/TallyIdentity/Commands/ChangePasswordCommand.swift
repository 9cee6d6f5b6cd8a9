import TallyProtocol
import TallyStorage

/// `identity.change_password`: the current password and a new one. Every session of the user
/// ends (their refresh tokens stop working), so whoever knew the old password is out once their
/// last access token expires; the person logs in again with the new password.
enum ChangePasswordCommand {
    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ identity: IdentityResources) throws -> StoredResult {
        try args.allowOnly(["current_password", "new_password"])
        let current = try Password.read(args, "current_password")
        let new = try Password.readNew(args, "new_password")
        guard new != current else {
            throw TallyError.invalidArgument("the new password is the current one; choose a different one", field: args.field("new_password"))
        }
        // No password is part of what a retry is compared by: it would be stored with the key.
        let request = ChangeRequest(context, owner: caller.userID, fingerprint: [:])
        if let stored = try identity.store.storedResult(for: request) { return stored }
        let throttle = identity.settings.throttle
        guard let user = try identity.store.read({ try UserRecord.find($0, userID: caller.userID) }) else {
            throw UnknownCaller().error
        }
        guard user.kind == .person, let hash = user.passwordHash else {
            throw TallyError(.failedPrecondition, "\(user.username) is a service account: it has service tokens, not a password")
        }
        // Counted before the hash is checked, in a commit of its own, as at login: concurrent wrong
        // guesses meet the limit exactly. The change below clears it when the password is right.
        try identity.store.reserveLoginAttempt(user.username, throttle: throttle, command: context.command)
        guard identity.passwords.verify(current, against: hash) else {
            throw TallyError(.unauthenticated, "the current password is wrong", field: args.field("current_password"))
        }
        let newHash = try identity.passwords.hash(new)
        return try identity.store.change(request) { change in
            guard let fresh = try UserRecord.find(change.session, userID: caller.userID), fresh.passwordHash == hash else {
                throw TallyError(.failedPrecondition, "the password was changed while this request ran; log in with the new one and try again")
            }
            try fresh.setPasswordHash(newHash, change.session, at: change.now)
            try throttle.clear(change.session, username: fresh.username)
            let ended = try SessionRecord.end(change.session, user: fresh.id, kind: .login, reason: .passwordChanged, at: change.now)
            change.record(IdentityEvent.passwordChanged(.init(of: fresh)))
            for session in ended { change.record(IdentityEvent.sessionEnded(.init(session, of: fresh, reason: .passwordChanged))) }
            return EndedSessions(endedSessions: ended.count)
        }
    }
}
