import TallyPostgres
import TallyProtocol
import Testing

/// Reading a database URL: where to connect, the pool and timeouts, and a password that never shows.
@Suite struct PostgresConfigurationTests {
    @Test func aTCPURLWithItsSettings() throws {
        let configuration = try PostgresConfiguration(
            url: "postgres://tally:s3cret@db.internal:6543/ledger?pool_size=8&connect_timeout=2.5&statement_timeout=0&acquire_timeout=1",
            environment: [:])
        #expect(configuration.host == "db.internal")
        #expect(configuration.port == 6543)
        #expect(configuration.socketDirectory == nil)
        #expect(configuration.username == "tally")
        #expect(configuration.password == "s3cret")
        #expect(configuration.database == "ledger")
        #expect(configuration.poolSize == 8)
        #expect(configuration.connectTimeout == .milliseconds(2500))
        #expect(configuration.statementTimeout == nil, "0 turns the statement timeout off")
        #expect(configuration.acquireTimeout == .seconds(1))
        // The URL as given, settings and all, without its password.
        #expect(configuration.redacted == "postgres://tally@db.internal:6543/ledger?pool_size=8&connect_timeout=2.5&statement_timeout=0&acquire_timeout=1")
        #expect(configuration.serverAddress == "db.internal:6543")
    }

    @Test func theDefaults() throws {
        let configuration = try PostgresConfiguration(url: "postgresql://tally@localhost/ledger", environment: [:])
        #expect(configuration.port == 5432)
        #expect(configuration.password == nil)
        #expect(configuration.poolSize == 4)
        #expect(configuration.connectTimeout == .seconds(5))
        #expect(configuration.statementTimeout == .seconds(30))
        #expect(configuration.tls == .prefer, "a loopback host: traffic that never leaves the machine")
    }

    /// Over a network the server proves who it is, unless the URL says otherwise.
    @Test func tlsIsVerifiedByDefaultBeyondLoopbackAndSetByTheURL() throws {
        #expect(try PostgresConfiguration(url: "postgres://tally@db.internal/ledger", environment: [:]).tls == .verifyFull)
        #expect(try PostgresConfiguration(url: "postgres://tally@127.0.0.1/ledger", environment: [:]).tls == .prefer)
        let chosen = try PostgresConfiguration(url: "postgres://tally@db.internal/ledger?sslmode=verify-ca&sslrootcert=/etc/tally/ca.pem", environment: [:])
        #expect(chosen.tls == .verifyCA)
        #expect(chosen.rootCertificateFile == "/etc/tally/ca.pem")
        #expect(try PostgresConfiguration(url: "postgres://tally@db.internal/ledger?sslmode=disable", environment: [:]).tls == .disable)
    }

    @Test func aUnixSocketDirectory() throws {
        let configuration = try PostgresConfiguration(url: "postgres://tally@/ledger?host=/run/postgresql&port=5433", environment: [:])
        #expect(configuration.socketDirectory == "/run/postgresql")
        #expect(configuration.port == 5433)
        #expect(configuration.redacted == "postgres://tally@/ledger?host=/run/postgresql&port=5433")
        #expect(configuration.serverAddress == "/run/postgresql/.s.PGSQL.5433")
    }

    @Test func thePasswordComesFromPGPASSWORDWhenTheURLHasNoneAndIsNeverShown() throws {
        let engine = try PostgresEngine(url: "postgres://tally@db.internal/ledger", environment: ["PGPASSWORD": "from-env"])
        #expect(engine.configuration.password == "from-env")
        #expect(!engine.location.contains("from-env"))
        let withPassword = try PostgresEngine(url: "postgres://tally:in-url@db.internal/ledger", environment: ["PGPASSWORD": "from-env"])
        #expect(withPassword.configuration.password == "in-url", "the URL's password wins")
        #expect(!withPassword.location.contains("in-url"))
    }

    @Test(arguments: [
        "mysql://tally@db/ledger", "postgres://db.internal/ledger", "postgres://tally@db.internal/",
        "postgres://tally@db.internal/ledger?pool_size=0", "postgres://tally@db.internal/ledger?connect_timeout=soon",
        "postgres://tally@db.internal/ledger?schema=Accounts", "postgres://tally@db.internal/ledger?schema=a;drop",
        "postgres://tally@db.internal/ledger?sslmode=allow", "postgres://tally@db.internal/ledger?pool_sise=4",
    ])
    func aURLThatIsNotUsableIsRefusedWithoutEchoingIt(_ url: String) {
        #expect {
            try PostgresConfiguration(url: url.replacingOccurrences(of: "tally@", with: "tally:hunter2@"), environment: [:])
        } throws: { error in
            let error = error as? TallyError
            return error?.code == .invalidArgument && error?.message.contains("hunter2") == false
        }
    }
}
