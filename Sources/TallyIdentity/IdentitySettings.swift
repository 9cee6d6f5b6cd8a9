/// How the identity service issues tokens, hashes passwords and slows down guessing; from
/// `tally worker identity`'s flags and `TALLY_*` variables.
public struct IdentitySettings: Sendable {
    /// How long an access token is valid: also how long a logged-out session, a changed password
    /// or a revoked role can still be used by a token issued before (every worker checks tokens
    /// on its own, without asking the identity service).
    public var accessTokenLifetime: Duration
    /// How long a refresh token may wait to be used. Each use gives a new one, valid as long again.
    public var refreshTokenLifetime: Duration
    public var passwordHashing: ScryptParameters
    public var throttle: LoginThrottle

    public init(
        accessTokenLifetime: Duration = .seconds(300), refreshTokenLifetime: Duration = .seconds(14 * 24 * 3600),
        passwordHashing: ScryptParameters = .recommended, throttle: LoginThrottle = LoginThrottle()
    ) {
        self.accessTokenLifetime = accessTokenLifetime
        self.refreshTokenLifetime = refreshTokenLifetime
        self.passwordHashing = passwordHashing
        self.throttle = throttle
    }
}
