import Foundation
import Synchronization
import TallyPostgres
import TallyProtocol
import TallyStorage
import TallyTesting
import Testing

/// A database that goes away: callers are told `unavailable` at once (never left hanging), and
/// the engine serves again by itself once the server is back. On a cluster of the test's own,
/// since it stops the server.
@Suite(.enabled(if: PostgresCluster.isInstalled, Comment(rawValue: PostgresCluster.whyUnavailable ?? "")))
struct PostgresOutageTests {
    private func isUnavailable(_ error: any Error) -> Bool {
        (error as? TallyError)?.code == .unavailable
    }

    @Test func aStoppedServerIsUnavailableAndTheEngineRecoversWhenItReturns() async throws {
        let cluster = try await PostgresCluster.started()
        try cluster.makeDatabase("ledger")
        let overSocket = try PostgresEngine(url: cluster.url(database: "ledger") + "&connect_timeout=2")
        let overTCP = try PostgresEngine(url: cluster.tcpURL(database: "ledger") + "?connect_timeout=2")
        for engine in [overSocket, overTCP] {
            _ = try engine.write { try $0.execute("CREATE TABLE IF NOT EXISTS entry (id BIGINT)") }
        }

        try await cluster.stop()
        for engine in [overSocket, overTCP] {
            let started = ContinuousClock.now
            #expect(performing: { try engine.write { try $0.execute("INSERT INTO entry VALUES (1)") } }, throws: isUnavailable)
            #expect(performing: { try engine.read { try $0.fetchValue("SELECT COUNT(*) FROM entry", as: Int.self) } }, throws: isUnavailable)
            #expect(ContinuousClock.now - started < .seconds(5), "told at once, not after a hang")
            #expect(!"\(engine.location)".contains("password"))
        }

        try await cluster.start()
        for engine in [overSocket, overTCP] {
            _ = try engine.write { try $0.execute("INSERT INTO entry VALUES (1)") }
        }
        #expect(try overSocket.read { try $0.fetchValue("SELECT COUNT(*) FROM entry", as: Int.self) } == 2)
    }

    /// Nothing listens where the URL points: the message names the address, why, and the URL as
    /// the operator gave it, without its password.
    @Test func anUnreachableServerIsNamedWithWhyAndTheURLAsGiven() throws {
        let port = try freeLoopbackPort()
        let url = "postgres://tally:hunter2@127.0.0.1:\(port)/ledger?connect_timeout=2&pool_size=2"
        let engine = try PostgresEngine(url: url)
        let error = try #require(throws: TallyError.self) { _ = try engine.read { try $0.fetchValue("SELECT 1", as: Int.self) } }
        #expect(error.code == .unavailable)
        #expect(error.message.contains("127.0.0.1:\(port)"), "\(error.message)")
        #expect(error.message.contains("(connection refused)"), "\(error.message)")
        #expect(error.message.contains("postgres://tally@127.0.0.1:\(port)/ledger?connect_timeout=2&pool_size=2"), "\(error.message)")
        #expect(!error.message.contains("hunter2"), "\(error.message)")
    }

    /// The server ends an idle pooled connection (a restart, an administrator, an idle timeout):
    /// the next caller is served on a fresh connection, not told about the dead one.
    @Test func aConnectionTheServerEndedIsReplacedWithoutFailingTheNextCaller() throws {
        let cluster = try PostgresCluster.shared()
        let url = try cluster.makeDatabase()
        let engine = try PostgresEngine(url: url + "&pool_size=2")
        // Two threads at once, so the pool holds two idle connections.
        onThreads(2) { _ in _ = try? engine.write { try $0.execute("SELECT pg_sleep(0.1)") } }
        let ended = try PostgresEngine(url: url).write { session in
            try session.fetchValues(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
                as: Bool.self)
        }
        #expect(ended.count == 2)
        for _ in 0..<3 {
            #expect(try engine.read { try $0.fetchValue("SELECT 1", as: Int.self) } == 1)
        }
    }

    /// The server restarts again and again under writes from several threads, each transaction
    /// several statements long (BEGIN, SAVEPOINT, INSERT, RELEASE, COMMIT, as `GroupCommit` runs
    /// them): every call ends at once, answered or `unavailable`, never parked until the statement
    /// timeout (30 s here) on a connection the server had closed; the engine serves again after
    /// each restart by itself; and every write it acknowledged is stored exactly once.
    @Test func writesThroughRepeatedRestartsEndAtOnceAndNothingAcknowledgedIsLost() async throws {
        let cluster = try await PostgresCluster.started()
        try cluster.makeDatabase("ledger")
        let engine = try PostgresEngine(url: cluster.url(database: "ledger") + "&connect_timeout=2&pool_size=6")
        _ = try engine.write { try $0.execute("CREATE TABLE entry (key TEXT NOT NULL)") }

        let bound = Duration.seconds(4)
        let stopping = Atomic(false)
        // Each acknowledged key and when it was acknowledged, as the writing thread saw it.
        let acknowledged = Mutex<[(key: String, at: ContinuousClock.Instant)]>([])
        let slowest = Mutex<Duration>(.zero)
        let unexpected = Mutex<[String]>([])
        let writers = 6
        let writing = Atomic(writers)
        for thread in 0..<writers {
            Thread {
                defer { writing.subtract(1, ordering: .relaxed) }
                var serial = 0
                while !stopping.load(ordering: .relaxed) {
                    serial += 1
                    let key = "\(thread)-\(serial)"
                    let started = ContinuousClock.now
                    do {
                        _ = try engine.write { session in
                            try session.savepoint { try session.execute("INSERT INTO entry (key) VALUES (\(key))") }
                        }
                        acknowledged.withLock { $0.append((key, .now)) }
                    } catch let error as TallyError where error.code == .unavailable {
                        usleep(5_000)
                    } catch {
                        unexpected.withLock { $0.append("\(error)") }
                    }
                    let took = ContinuousClock.now - started
                    slowest.withLock { $0 = max($0, took) }
                }
            }.start()
        }

        for bounce in 0..<5 {
            try await Task.sleep(for: .milliseconds(300))
            try await cluster.stop()
            try await Task.sleep(for: .milliseconds(200 + bounce * 150))
            try await cluster.start()
        }
        // Serving again within a few seconds of the last restart, with no help: timed by when the
        // writing threads saw their writes acknowledged, not by when this task got to look.
        let restarted = ContinuousClock.now
        let before = acknowledged.withLock { $0.count }
        try await waitUntil("50 writes are acknowledged after the last restart", timeout: .seconds(10)) {
            acknowledged.withLock { $0.count } >= before + 50
        }
        stopping.store(true, ordering: .relaxed)
        try await waitUntil("every writing thread ended", timeout: .seconds(40)) { writing.load(ordering: .relaxed) == 0 }
        let servingAgainAfter = acknowledged.withLock { $0[before + 49].at } - restarted
        #expect(servingAgainAfter < .seconds(5), "writes succeed again soon after the last restart")

        #expect(slowest.withLock { $0 } < bound, "no call was left waiting on a closed connection")
        #expect(unexpected.withLock { $0 } == [], "failures were `unavailable`")
        let stored = try engine.read { try $0.fetchValues("SELECT key FROM entry", as: String.self) }
        var counts: [String: Int] = [:]
        for key in stored { counts[key, default: 0] += 1 }
        let keys = acknowledged.withLock { $0.map(\.key) }
        #expect(keys.count > 100)
        #expect(keys.filter { counts[$0] != 1 } == [], "every acknowledged write stored exactly once")
    }

    /// The server stops answering altogether (its process frozen, as on a host that hangs): a
    /// request with a deadline is released soon after it, not after the statement timeout: the
    /// frozen connection is given up, and the request is told `unavailable`, or
    /// `deadline_exceeded` when the engine finds its deadline passed on taking a fresh one.
    @Test func aServerThatStopsAnsweringReleasesTheCallerSoonAfterItsDeadline() throws {
        let cluster = try PostgresCluster.shared()
        let engine = try PostgresEngine(url: try cluster.makeDatabase() + "&pool_size=1")
        let backend = try #require(try engine.read { try $0.fetchValue("SELECT pg_backend_pid()", as: Int64.self) })
        kill(pid_t(backend), SIGSTOP)
        defer { kill(pid_t(backend), SIGCONT) }
        let started = ContinuousClock.now
        #expect(performing: {
            try StorageDeadline.$current.withValue(.now + .seconds(1)) { try engine.write { try $0.execute("SELECT 1") } }
        }, throws: { [.unavailable, .deadlineExceeded].contains(($0 as? TallyError)?.code) })
        #expect(ContinuousClock.now - started < .seconds(10), "released at the deadline and a margin, not the statement timeout (30 s)")
    }
}
