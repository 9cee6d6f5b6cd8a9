import Foundation
import Synchronization
import TallyIdentity
import TallyProtocol
import TallyStorage
import TallyTesting
import Testing

@testable import TallyIdentity

/// Changing a password, and slowing down guessing.
@Suite struct PasswordChangeAndThrottleTests {
    @Test func changingThePasswordEndsEverySessionAndOnlyTheNewOneWorks() throws {
        let identity = try IdentityHarness()
        try identity.signUp("ann")
        let first = try identity.logIn("ann")
        let other = try identity.logIn("ann")
        let caller = try identity.caller(of: first["access_token"])

        let wrong = identity.error(
            "identity.change_password", ["current_password": "not the password", "new_password": "a brand new password"], as: caller)
        #expect(wrong?.code == .unauthenticated)
        #expect(wrong?.field == "args.current_password")

        let changed = try identity.call(
            "identity.change_password", ["current_password": .string(IdentityHarness.password), "new_password": "a brand new password"],
            as: caller)
        #expect(changed == ["ended_sessions": 2])
        for session in [first, other] {
            #expect(identity.error("identity.refresh", ["refresh_token": session["refresh_token"] ?? .null])?.code == .unauthenticated)
        }
        #expect(identity.error("identity.login", ["username": "ann", "password": .string(IdentityHarness.password)])?.code == .unauthenticated)
        #expect(try identity.logIn("ann", password: "a brand new password")["user"]?["username"] == "ann")
        let types = try identity.events().map(\.type)
        #expect(types.contains("identity.password_changed"))
    }

    @Test func afterTheFreeFailuresAUsernameIsLockedEvenForTheRightPassword() throws {
        // A long first lock, so the test never races the clock.
        let identity = try IdentityHarness(throttle: LoginThrottle(freeFailures: 3, firstLock: .seconds(3600)))
        try identity.signUp("ann")
        for _ in 0..<3 {
            #expect(identity.error("identity.login", ["username": "ann", "password": "a wrong guess"])?.code == .unauthenticated)
        }
        let locked = try #require(identity.error("identity.login", ["username": "ann", "password": .string(IdentityHarness.password)]))
        #expect(locked.code == .resourceExhausted)
        #expect(locked.message.contains("try again after"))
        #expect(locked.message.contains("'ann'"))

        // A username nobody has is locked the same way: the lock tells nothing about who exists.
        for _ in 0..<3 { _ = identity.error("identity.login", ["username": "ghost", "password": "a wrong guess"]) }
        let ghost = try #require(identity.error("identity.login", ["username": "ghost", "password": "a wrong guess"]))
        #expect(ghost.code == .resourceExhausted)
        #expect(ghost.message.replacingOccurrences(of: "ghost", with: "ann").prefix(40) == locked.message.prefix(40))
    }

    /// Twenty wrong passwords for one username at once, from two services on one database (two
    /// workers): exactly the free ones get their password checked, however the attempts
    /// interleave, because each is counted in the database before its hashing starts.
    @Test func concurrentWrongPasswordsGetExactlyTheFreeChecks() throws {
        try expectExactlyTheFreeChecks { _ in ("identity.login", ["username": "ann", "password": "a wrong guess"], nil) }
    }

    /// The same for a password change's current password: 20 wrong guesses at once, by a thief
    /// holding a session, get the free checks and not one more.
    @Test func concurrentWrongCurrentPasswordsGetExactlyTheFreeChecks() throws {
        try expectExactlyTheFreeChecks { identity in
            let ann = try identity.caller(of: identity.logIn("ann")["access_token"])
            return ("identity.change_password", ["current_password": "a wrong guess", "new_password": "a brand new password"], ann)
        }
    }

    /// 20 wrong guesses for ann at once, split over two services on one database: 5 are checked
    /// (`unauthenticated`), the rest refused by the lock (`resource_exhausted`).
    private func expectExactlyTheFreeChecks(
        _ guess: (IdentityHarness) throws -> (command: String, args: JSONValue, caller: Caller?)
    ) throws {
        let throttle = LoginThrottle(freeFailures: 5, firstLock: .seconds(3600))
        let identity = try IdentityHarness(throttle: throttle)
        try identity.signUp("ann")
        let (command, args, caller) = try guess(identity)
        let workers = [identity.service, try identity.secondService(throttle: throttle, passwordCost: ScryptParameters.weakestAccepted)]
        let start = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        let codes = Mutex<[ErrorCode?]>([])
        for index in 0..<20 {
            done.enter()
            Thread {
                start.wait()
                let error = ServiceHarness(workers[index % 2]).error(command, args, caller: caller)
                codes.withLock { $0.append(error?.code) }
                done.leave()
            }.start()
        }
        for _ in 0..<20 { start.signal() }
        done.wait()
        let answered = codes.withLock { $0 }
        #expect(answered.filter { $0 == .unauthenticated }.count == 5, "password checks: \(answered)")
        #expect(answered.filter { $0 == .resourceExhausted }.count == 15)
    }

    /// A throttle row whose window has passed is deleted by a later login, of anyone: the table
    /// holds the usernames tried lately, not every username ever tried.
    @Test func aLoginDeletesThrottleRowsWhoseWindowHasPassed() throws {
        let identity = try IdentityHarness()
        try identity.signUp("ann")
        _ = identity.error("identity.login", ["username": "ghost", "password": "a wrong guess"])
        let window = LoginThrottle().window.milliseconds
        let stale = Timestamp.now() - window - 1000
        let recent = Timestamp.now() - window + 60_000
        _ = try identity.store.change(ChangeRequest(command: "test", key: nil, scope: "test", fingerprint: .null)) { change in
            try change.session.execute("UPDATE login_throttle SET last_failure_at_ms = \(timestamp: stale) WHERE username = 'ghost'")
            try change.session.execute(
                "INSERT INTO login_throttle (username, failures, last_failure_at_ms) VALUES ('phantom', 3, \(timestamp: recent))")
            return 0
        }
        _ = try identity.logIn("ann")
        let left = try identity.store.read { try $0.fetchValues("SELECT username FROM login_throttle ORDER BY username", as: String.self) }
        #expect(left == ["phantom"], "ghost's window has passed, phantom's has not, ann's login cleared hers")
    }

    @Test func aRightPasswordBeforeTheLockClearsTheCount() throws {
        let identity = try IdentityHarness(throttle: LoginThrottle(freeFailures: 2, firstLock: .seconds(3600)))
        try identity.signUp("ann")
        _ = identity.error("identity.login", ["username": "ann", "password": "a wrong guess"])
        _ = try identity.logIn("ann")
        _ = identity.error("identity.login", ["username": "ann", "password": "a wrong guess"])
        #expect(try identity.logIn("ann")["user"]?["username"] == "ann", "one failure since the last success: not locked")
    }

    @Test func eachFailureBeyondTheFreeOnesDoublesTheLockUpToTheLongest() {
        let throttle = LoginThrottle(freeFailures: 5, firstLock: .seconds(1), longestLock: .seconds(900))
        func lock(after failures: Int) -> Int64? {
            throttle.lockedUntil(LoginThrottle.Record(failures: failures, lastFailureAt: 0))
        }
        #expect(lock(after: 4) == nil)
        #expect(lock(after: 5) == 1000)
        #expect(lock(after: 6) == 2000)
        #expect(lock(after: 9) == 16_000)
        #expect(lock(after: 20) == 900_000)
        #expect(lock(after: 1000) == 900_000)
    }

    @Test func aStrongerSettingRehashesAPasswordAtTheNextLogin() throws {
        let identity = try IdentityHarness()
        try identity.signUp("ann")
        let stored = { try identity.store.read { try $0.fetchValue("SELECT password_hash FROM app_user", as: String.self) } ?? "" }
        #expect(try stored().contains("ln=14,"))
        let stronger = try identity.secondService(passwordCost: 15)
        _ = try identity.call("identity.login", ["username": "ann", "password": .string(IdentityHarness.password)], on: stronger)
        #expect(try stored().contains("ln=15,"))
        #expect(try identity.logIn("ann")["user"]?["username"] == "ann")
    }
}
