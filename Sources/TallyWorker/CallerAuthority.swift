import TallyProtocol

/// The source of truth about callers, for the one service that holds it: identity keeps every
/// session and every role. A verified token says who the caller was when it was signed; an
/// authority says who they are now, so a service that has one refuses the token of an ended
/// session, and reads roles as they are, at once rather than when the token expires.
///
/// `AccessControl` asks it before every command that needs a caller, before the role check.
public protocol CallerAuthority: Sendable {
    /// `caller` as they stand now (their current roles), or `unauthenticated` (field `token`) when
    /// their session has ended, is unknown, or they no longer exist.
    func current(_ caller: Caller) throws -> Caller
}
