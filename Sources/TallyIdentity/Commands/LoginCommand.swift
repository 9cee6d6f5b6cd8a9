import Foundation
import TallyProtocol
import TallyStorage

/// `identity.login`: a username and password in, a new session's access and refresh tokens out.
///
/// A wrong password and an unknown username get the same answer after the same work (a user who
/// does not exist is checked against a decoy hash). Every attempt is counted per username before
/// its password is checked, and cleared when it is right, so wrong passwords slow further tries
/// down exactly however many arrive at once (`LoginThrottle`). The hashing runs outside any
/// transaction, so slow logins never hold up other writers.
enum LoginCommand {
    static let wrongCredentials = TallyError(.unauthenticated, "the username or password is wrong")

    static func run(_ args: Arguments, _ context: RequestContext, _ identity: IdentityResources) throws -> SessionTokens {
        try args.allowOnly(["username", "password"])
        let username = try Username.read(args)
        let password = try Password.read(args, "password")
        let throttle = identity.settings.throttle
        let user = try identity.store.user(named: username)
        try identity.store.reserveLoginAttempt(username, throttle: throttle, command: context.command)
        let hash = user?.kind == .person ? user?.passwordHash : nil
        // A wrong password stays counted: the reservation was.
        guard identity.passwords.verify(password, against: hash), let user, let hash else { throw wrongCredentials }
        let stronger = identity.passwords.needsRehash(hash) ? try identity.passwords.hash(password) : nil
        let tokens: SessionTokens? = try identity.store.change(unkeyed: context.command) { change in
            // The password checked must still be the user's: it may have changed meanwhile.
            guard let current = try UserRecord.find(change.session, username: username), current.id == user.id,
                current.passwordHash == hash
            else { return nil }
            try throttle.clear(change.session, username: username)
            if let stronger { try current.setPasswordHash(stronger, change.session, at: change.now) }
            let session = try SessionRecord.start(change.session, user: current, kind: .login, at: change.now)
            change.record(IdentityEvent.sessionStarted(.init(session, kind: .login, of: current)))
            return try identity.tokens.tokens(for: current, session: session, change.session, now: change.now)
        }
        guard let tokens else { throw wrongCredentials }
        return tokens
    }
}
