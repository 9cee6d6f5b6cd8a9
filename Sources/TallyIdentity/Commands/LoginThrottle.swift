import Foundation
import TallyProtocol
import TallyStorage

/// Slows down password guessing, per username, whether or not the user exists: after
/// `freeFailures` wrong passwords in a row, each further one locks the username for twice as long
/// as the one before (1 s, 2 s, 4 s, ... up to `longestLock`). A right password clears the count;
/// failures more than `forgetAfter` apart start counting afresh.
///
/// Each attempt is counted before its password is checked, in the same write transaction that
/// checks the lock (`reserveAttempt`), and a right password clears the count. So the limit is
/// exact however many threads and processes try one username at once: the sixth of twenty
/// concurrent guesses finds five counted and is refused, where counting after the hashing let
/// every guess that read the count before the fifth was written through. Guesses during a lock
/// cost the guesser a refusal and the server no hashing.
///
/// A row is kept only while it can matter: once its failures are forgotten and any lock has
/// passed, later writes delete it (`expire`), so guessing many usernames cannot grow the table
/// without bound. Someone who knows a username can keep its owner locked out
/// for `longestLock` at a time; that is the price of slowing guessing per account, and why the
/// lock is short.
public struct LoginThrottle: Sendable {
    public var freeFailures: Int
    public var firstLock: Duration
    public var longestLock: Duration
    public var forgetAfter: Duration

    public init(
        freeFailures: Int = 5, firstLock: Duration = .seconds(1), longestLock: Duration = .seconds(900),
        forgetAfter: Duration = .seconds(3600)
    ) {
        self.freeFailures = freeFailures
        self.firstLock = firstLock
        self.longestLock = longestLock
        self.forgetAfter = forgetAfter
    }

    /// The failures counted for `username` and when the last was.
    struct Record {
        var failures: Int
        var lastFailureAt: Int64
    }

    static func record(_ session: any SQLSession, username: String) throws -> Record? {
        guard let row = try session.fetchOne("SELECT failures, last_failure_at_ms FROM login_throttle WHERE username = \(username)")
        else { return nil }
        return Record(failures: try row["failures"], lastFailureAt: try row["last_failure_at_ms"])
    }

    /// Until when (ms) `record` locks its username, or nil when it does not.
    func lockedUntil(_ record: Record?) -> Int64? {
        guard let record, record.failures >= freeFailures else { return nil }
        let doublings = min(record.failures - freeFailures, 40)
        let lock = min(firstLock.milliseconds << doublings, longestLock.milliseconds)
        return record.lastFailureAt + lock
    }

    /// Refuses a login for `username` while it is locked.
    func check(_ record: Record?, username: String, now: Int64) throws {
        guard let until = lockedUntil(record), now < until else { return }
        let seconds = (until - now + 999) / 1000
        throw TallyError(
            .resourceExhausted,
            "too many wrong passwords for '\(username)'; try again after \(Timestamp.rfc3339(until)) (in \(seconds) s)")
    }

    /// The most expired rows one write deletes: bounded work per login, and more than the one row
    /// a login can add, so the table shrinks back to the usernames tried within the window.
    static let expiredRowsPerWrite = 100

    /// Reserves a password check for `username`, in a write transaction that commits before the
    /// password is checked: refuses it while the username is locked, else counts it as a failure
    /// (which `clear` undoes if the password is right), and expires a bounded number of rows whose
    /// window has passed.
    func reserveAttempt(_ session: any SQLSession, username: String, now: Int64) throws {
        try check(try Self.record(session, username: username), username: username, now: now)
        try recordFailure(session, username: username, now: now)
        try expire(session, now: now)
    }

    /// How long after its last failure a row still counts or locks: then it is as good as absent.
    var window: Duration { max(forgetAfter, longestLock) }

    /// Deletes up to `expiredRowsPerWrite` rows whose `window` has passed.
    func expire(_ session: any SQLSession, now: Int64) throws {
        let expired = now - window.milliseconds
        try session.execute("""
            DELETE FROM login_throttle WHERE username IN (
                SELECT username FROM login_throttle WHERE last_failure_at_ms < \(timestamp: expired) LIMIT \(Self.expiredRowsPerWrite))
            """)
    }

    /// Counts a wrong password for `username`.
    func recordFailure(_ session: any SQLSession, username: String, now: Int64) throws {
        let stale = now - forgetAfter.milliseconds
        try session.execute("""
            INSERT INTO login_throttle (username, failures, last_failure_at_ms) VALUES (\(username), 1, \(timestamp: now))
            ON CONFLICT (username) DO UPDATE SET
                failures = CASE WHEN login_throttle.last_failure_at_ms < \(timestamp: stale) THEN 1 ELSE login_throttle.failures + 1 END,
                last_failure_at_ms = \(timestamp: now)
            """)
    }

    /// Forgets the failures of `username`: its password was right.
    func clear(_ session: any SQLSession, username: String) throws {
        try session.execute("DELETE FROM login_throttle WHERE username = \(username)")
    }
}

extension Duration {
    var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}
