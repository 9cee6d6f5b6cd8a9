import Foundation
import TallyPostgres
import TallyProtocol
import TallyStorage
import TallyTesting
import Testing

/// TLS to the server, on a cluster of the test's own that offers it with a self-signed
/// certificate for `localhost` and 127.0.0.1: encrypted when asked, verified when asked, and a
/// server that cannot prove who it is refused.
@Suite(.enabled(if: PostgresCluster.isInstalled, Comment(rawValue: PostgresCluster.whyUnavailable ?? "")))
struct PostgresTLSTests {
    /// Whether the engine's connection is encrypted, as the server sees it.
    private func encrypted(_ engine: PostgresEngine) throws -> Bool? {
        try engine.read { try $0.fetchValue("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()", as: Bool.self) }
    }

    @Test func encryptedWhenAskedAndVerifiedAgainstTheGivenAuthority() async throws {
        let cluster = try await PostgresCluster.started(tls: true)
        try cluster.makeDatabase("ledger")
        let certificate = try #require(cluster.certificateFile)
        for host in ["127.0.0.1", "localhost"] {
            let base = "postgres://\(PostgresCluster.superuser)@\(host):\(cluster.port)/ledger?connect_timeout=5"
            #expect(try encrypted(PostgresEngine(url: base)) == true, "prefer, the loopback default, takes the TLS offered")
            #expect(try encrypted(PostgresEngine(url: base + "&sslmode=require")) == true)
            #expect(try encrypted(PostgresEngine(url: base + "&sslmode=verify-full&sslrootcert=\(certificate)")) == true, "\(host)")
            #expect(try encrypted(PostgresEngine(url: base + "&sslmode=disable")) == false)
        }
        // Not signed by an authority the system trusts: refused, saying why, not connected in clear.
        let untrusted = try PostgresEngine(url: "postgres://\(PostgresCluster.superuser)@127.0.0.1:\(cluster.port)/ledger?sslmode=verify-full")
        #expect {
            try untrusted.read { try $0.fetchValue("SELECT 1", as: Int.self) }
        } throws: { error in
            (error as? TallyError)?.code == .unavailable && "\(error)".lowercased().contains("certificate")
        }
        // A file that holds no certificate is a configuration error, named.
        let missing = try PostgresEngine(url: "postgres://\(PostgresCluster.superuser)@127.0.0.1:\(cluster.port)/ledger?sslmode=verify-ca&sslrootcert=/nonexistent.pem")
        #expect {
            try missing.read { try $0.fetchValue("SELECT 1", as: Int.self) }
        } throws: { error in
            (error as? TallyError)?.code == .failedPrecondition && "\(error)".contains("/nonexistent.pem")
        }
    }

    @Test func requireRefusesAServerWithoutTLSAndPreferFallsBackToPlainText() throws {
        let cluster = try PostgresCluster.shared()
        let name = "t_plain_\(UUID().uuidString.prefix(8).lowercased())"
        try cluster.makeDatabase(name)
        let base = "postgres://\(PostgresCluster.superuser)@127.0.0.1:\(cluster.port)/\(name)?connect_timeout=5"
        #expect(try encrypted(PostgresEngine(url: base)) == false)
        #expect(performing: {
            try PostgresEngine(url: base + "&sslmode=require").read { try $0.fetchValue("SELECT 1", as: Int.self) }
        }, throws: { ($0 as? TallyError)?.code == .unavailable })
    }
}
