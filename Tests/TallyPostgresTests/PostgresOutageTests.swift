import Foundation
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

    @Test func aStoppedServerIsUnavailableAndTheEngineRecoversWhenItReturns() throws {
        let cluster = try PostgresCluster()
        try cluster.makeDatabase("ledger")
        let overSocket = try PostgresEngine(url: cluster.url(database: "ledger") + "&connect_timeout=2")
        let overTCP = try PostgresEngine(url: cluster.tcpURL(database: "ledger") + "?connect_timeout=2")
        for engine in [overSocket, overTCP] {
            _ = try engine.write { try $0.execute("CREATE TABLE IF NOT EXISTS entry (id BIGINT)") }
        }

        try cluster.stop()
        for engine in [overSocket, overTCP] {
            let started = ContinuousClock.now
            #expect(performing: { try engine.write { try $0.execute("INSERT INTO entry VALUES (1)") } }, throws: isUnavailable)
            #expect(performing: { try engine.read { try $0.fetchValue("SELECT COUNT(*) FROM entry", as: Int.self) } }, throws: isUnavailable)
            #expect(ContinuousClock.now - started < .seconds(5), "told at once, not after a hang")
            #expect(!"\(engine.location)".contains("password"))
        }

        try cluster.start()
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
}
